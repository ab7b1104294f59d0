"""mpfrun's options, each run end to end (SPEC §6)."""
import json
import os
import re
import subprocess
import unittest

import jsonschema

from mpfrun_testing import JobTestCase, program

ACTIONS = program("job_actions")


class CommandLine(JobTestCase):
    def test_version(self):
        status, out, _ = self.mpfrun("--version")
        self.assertEqual(status, 0)
        self.assertRegex(out, r"^mpfrun \(MPF Toolkit\) \d+\.\d+\.\d+$")

    def test_help_lists_every_option(self):
        status, out, _ = self.mpfrun("--help")
        self.assertEqual(status, 0)
        for option in ["--np", "-x", "--env", "--host", "--hostfile", "--map-by", "--bind-to",
                       "--report-bindings", "--tag-output", "--timestamp-output", "--output-filename",
                       "--timeout", "--set", "--tuning", "--list-params", "--report", "--verbose",
                       "--cleanup", "--version"]:
            self.assertIn(option, out)

    def test_bad_input_is_one_line_and_status_2(self):
        cases = [
            (["--bogus", "true"], "unknown option --bogus"),
            ([], "no program given"),
            (["-n", "2", "./does-not-exist"], "program ./does-not-exist does not exist"),
            (["-n", "2", "no-such-program-anywhere"], "'no-such-program-anywhere' not found in PATH"),
            (["-n", "0", "true"], "--np"),
            (["--bind-to", "socket", "true"], "--bind-to"),
            (["--timeout", "-3", "true"], "--timeout"),
            (["--env", "NOEQUALS", "true"], "--env NOEQUALS: expected VAR=VALUE"),
            (["-x", "TEST_SURELY_UNSET_VARIABLE", "true"], "TEST_SURELY_UNSET_VARIABLE is not set"),
            (["-H", "node2", "true"], "on other machines only through Slurm"),
            (["--set", "stop_grace_ms=lots", "true"], "stop_grace_ms"),
            (["--set", "no_such_tunable=1", "true"], "unknown tunable 'no_such_tunable'"),
            (["-n", "1", "true", ":", "--tag-output", "true"], "not allowed after ':'"),
            (["--env", "MPF_STOP_GRACE_MS=5", "true"], "MPF_STOP_GRACE_MS is a tunable"),
            (["-x", "MPF_STOP_GRACE_MS=5", "true"], "MPF_STOP_GRACE_MS is a tunable"),
            (["--output-filename", "/proc/no-such-dir", "-n", "1", "true"], "--output-filename: cannot create"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                status, out, err = self.mpfrun(*args)
                self.assertEqual(status, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(message, err)
                self.assertTrue(err.startswith("mpfrun: "), err)
                self.assertEqual(out, "")
        self.assert_clean()

    def test_np_spellings(self):
        for flag in ["-n", "-np", "--np"]:
            with self.subTest(flag=flag):
                status, out, _ = self.mpfrun(flag, "3", ACTIONS, "hello")
                self.assertEqual(status, 0)
                self.assertEqual(sorted(re.findall(r"rank (\d) of 3", out)), ["0", "1", "2"])

    def test_double_dash_ends_the_options(self):
        status, out, _ = self.mpfrun("-n", "2", "--", ACTIONS, "hello")
        self.assertEqual(status, 0)
        self.assertEqual(out.count("hello from rank"), 2)

    def test_program_arguments_are_not_options(self):
        status, out, _ = self.mpfrun("-n", "1", "echo", "-n", "5", "--tag-output")
        self.assertEqual(status, 0)
        # echo took -n itself; mpfrun ends the unterminated last line for it.
        self.assertEqual(out, "5 --tag-output\n")

    def test_mpmd_contexts(self):
        status, out, _ = self.mpfrun("--tag-output", "-n", "1", ACTIONS, "hello", ":",
                                     "-n", "2", "--env", "WHO=second", ACTIONS, "env", "WHO")
        self.assertEqual(status, 0, out)
        self.assertIn("[0] hello from rank 0 of 3", out)
        self.assertIn("[1] rank 1 WHO=second", out)
        self.assertIn("[2] rank 2 WHO=second", out)

    def test_environment_options(self):
        env = dict(self.env, TEST_EXPORTED="from-mpfrun")
        status, out, _ = self.mpfrun("-n", "2", "-x", "TEST_EXPORTED", "-x", "A=1", "--env", "B=two=2",
                                     ACTIONS, "env", "TEST_EXPORTED", "A", "B", env=env)
        self.assertEqual(status, 0)
        for rank in (0, 1):
            self.assertIn(f"rank {rank} TEST_EXPORTED=from-mpfrun", out)
            self.assertIn(f"rank {rank} A=1", out)
            self.assertIn(f"rank {rank} B=two=2", out)

    def test_hosts_of_this_machine_are_accepted(self):
        hostfile = os.path.join(self.tmpdir, "hosts")
        with open(hostfile, "w") as f:
            f.write("# this machine only\nlocalhost slots=4\n")
        status, out, _ = self.mpfrun("-H", "localhost", "--hostfile", hostfile, "-n", "2", ACTIONS, "hello")
        self.assertEqual(status, 0)
        self.assertEqual(out.count("hello from rank"), 2)


class Output(JobTestCase):
    def test_tag_output_prefixes_every_line_and_never_splits_one(self):
        status, out, _ = self.mpfrun("--tag-output", "-n", "4", ACTIONS, "lines", "200")
        self.assertEqual(status, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 800)
        for line in lines:
            m = re.fullmatch(r"\[(\d)\] rank (\d) line (\d+) ([a-z]{200})", line)
            self.assertIsNotNone(m, line)
            self.assertEqual(m.group(1), m.group(2))
            self.assertEqual(set(m.group(4)), {"abcd"[int(m.group(2))]})
        for rank in range(4):  # each rank's lines arrive in its order
            numbers = [int(l.split()[4]) for l in lines if l.startswith(f"[{rank}]")]
            self.assertEqual(numbers, list(range(200)))

    def test_timestamp_output(self):
        status, out, _ = self.mpfrun("--timestamp-output", "--tag-output", "-n", "2", ACTIONS, "hello")
        self.assertEqual(status, 0)
        for line in out.splitlines():
            self.assertRegex(line, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} \[\d\] hello from rank")

    def test_output_filename_writes_a_file_per_rank(self):
        outdir = os.path.join(self.tmpdir, "out")
        status, out, _ = self.mpfrun("--output-filename", outdir, "-n", "3", ACTIONS, "hello")
        self.assertEqual(status, 0)
        self.assertEqual(out, "")
        for rank in range(3):
            with open(os.path.join(outdir, f"rank.{rank}", "stdout")) as f:
                self.assertRegex(f.read(), rf"^hello from rank {rank} of 3 on ")
            self.assertTrue(os.path.exists(os.path.join(outdir, f"rank.{rank}", "stderr")))

    def test_stdin_goes_to_rank_0(self):
        status, out, _ = self.mpfrun("-n", "3", ACTIONS, "echo-stdin", input="first\nsecond\n")
        self.assertEqual(status, 0)
        self.assertEqual(out, "rank 0 read: first\nrank 0 read: second\n")

    def test_stderr_is_forwarded(self):
        status, out, err = self.mpfrun("-n", "2", "sh", "-c", "echo to-stderr >&2")
        self.assertEqual(status, 0)
        self.assertEqual(err.count("to-stderr"), 2)
        self.assertEqual(out, "")


class Placement(JobTestCase):
    def test_bind_to_core_sets_affinity_and_reports_it(self):
        ncpus = len(os.sched_getaffinity(0))
        status, out, err = self.mpfrun("--bind-to", "core", "--report-bindings", "--tag-output", "-n", "3",
                                       "grep", "Cpus_allowed_list", "/proc/self/status")
        self.assertEqual(status, 0, err)
        cpus = sorted(os.sched_getaffinity(0))
        for rank in range(3):
            expected = cpus[rank % ncpus]
            self.assertRegex(err, rf"mpfrun: rank {rank} \(pid \d+\): bound to cpu {expected} \(NUMA node")
            self.assertRegex(out, rf"\[{rank}\] Cpus_allowed_list:\s+{expected}\n")

    def test_bind_to_numa_binds_to_the_node(self):
        status, out, err = self.mpfrun("--bind-to", "numa", "--map-by", "numa", "--report-bindings", "-n", "2",
                                       "true")
        self.assertEqual(status, 0, err)
        self.assertEqual(len(re.findall(r"bound to cpus? [0-9,-]+ \(NUMA node \d+\)", err)), 2)

    def test_default_is_unbound_with_a_cpu_per_rank(self):
        status, _, err = self.mpfrun("--report-bindings", "-n", "1", "true")
        self.assertEqual(status, 0)
        self.assertRegex(err, r"mpfrun: rank 0 \(pid \d+\): not bound")

    def test_default_binds_ranks_that_outnumber_the_cpus_evenly(self):
        cpus = sorted(os.sched_getaffinity(0))
        n = 2 * len(cpus)
        status, out, err = self.mpfrun("--report-bindings", "--tag-output", "-n", str(n),
                                       "grep", "Cpus_allowed_list", "/proc/self/status")
        self.assertEqual(status, 0, err)
        for rank in range(n):
            expected = cpus[rank % len(cpus)]
            self.assertRegex(err, rf"mpfrun: rank {rank} \(pid \d+\): bound to cpu {expected} \(NUMA node")
            self.assertRegex(out, rf"\[{rank}\] Cpus_allowed_list:\s+{expected}\n")
        # Unevenly (not possible on one CPU), or when told, they stay
        # unbound: the kernel balances them.
        cases = [["--bind-to", "none", "-n", str(n)]]
        if len(cpus) > 1:
            cases.append(["-n", str(n + 1)])
        for args in cases:
            status, _, err = self.mpfrun("--report-bindings", *args, "true")
            self.assertEqual(status, 0, err)
            self.assertNotIn("bound to", err)
            self.assertEqual(err.count("not bound"), int(args[-1]))


class Tunables(JobTestCase):
    def test_list_params_shows_value_and_source(self):
        tuning = os.path.join(self.tmpdir, "tuning.json")
        with open(tuning, "w") as f:
            json.dump({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 1500}}, f)
        status, out, _ = self.mpfrun("--list-params", "--tuning", tuning)
        self.assertEqual(status, 0)
        self.assertRegex(out, rf"stop_grace_ms\s+1500\s+tuning file {re.escape(tuning)}\s")
        env = dict(self.env, MPF_STOP_GRACE_MS="1700")
        status, out, _ = self.mpfrun("--list-params", "--tuning", tuning, env=env)
        self.assertRegex(out, r"stop_grace_ms\s+1700\s+env MPF_STOP_GRACE_MS")
        status, out, _ = self.mpfrun("--list-params", "--tuning", tuning, "--set", "stop_grace_ms=1900", env=env)
        self.assertRegex(out, r"stop_grace_ms\s+1900\s+--set")

    def write_tuning(self, machine):
        tuning = os.path.join(self.tmpdir, "tuned.json")
        with open(tuning, "w") as f:
            json.dump({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 1500}, "machine": machine}, f)
        return tuning

    def test_tuning_file_of_another_machine_warns_once_and_applies(self):
        tuning = self.write_tuning({"cpu_model": "Another CPU @ 9.9GHz", "cpus": 4096,
                                    "memory_bytes": 1 << 50, "date": "2026-11-26T17:00:00Z"})
        status, out, err = self.mpfrun("--tuning", tuning, "-n", "2", program("print_tunables"), "stop_grace_ms")
        self.assertEqual(status, 0, err)
        self.assertEqual(out.count("stop_grace_ms=1500 (file)"), 2)
        warnings = [line for line in err.splitlines() if "warning" in line]
        self.assertEqual(len(warnings), 1, err)
        self.assertRegex(warnings[0], rf"^mpfrun: warning: tuning file {re.escape(tuning)} was measured on another "
                                      r"machine \(Another CPU @ 9\.9GHz, 4096 CPUs, 1048576 GiB of memory; this one: "
                                      r".+\); its values still apply; run mpftune on this machine to tune it$")
        # A program started without mpfrun says it too, once.
        env = dict(self.env, MPF_TUNING_FILE=tuning)
        result = subprocess.run([program("print_tunables"), "stop_grace_ms"], capture_output=True, text=True,
                                env=env, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "rank 0 stop_grace_ms=1500 (file)\n")
        warnings = [line for line in result.stderr.splitlines() if "warning" in line]
        self.assertEqual(len(warnings), 1, result.stderr)
        self.assertRegex(warnings[0], rf"^mpf: warning: tuning file {re.escape(tuning)} was measured on another "
                                      r"machine \(.*\); its values still apply; run mpftune on this machine to "
                                      r"tune it$")

    def test_tuning_file_of_this_machine_says_nothing(self):
        model = "unknown"
        with open("/proc/cpuinfo") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name.strip() == "model name":
                    model = value.strip()
                    break
        tuning = self.write_tuning({"cpu_model": model, "cpus": os.sysconf("SC_NPROCESSORS_ONLN"),
                                    "memory_bytes": os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")})
        status, out, err = self.mpfrun("--tuning", tuning, "-n", "2", program("print_tunables"), "stop_grace_ms")
        self.assertEqual(status, 0, err)
        self.assertEqual(out.count("stop_grace_ms=1500 (file)"), 2)
        self.assertNotIn("warning", err)

    def test_malformed_machine_is_named(self):
        tuning = self.write_tuning({"cpu_model": "X", "cpus": "2", "memory_bytes": 1 << 30})
        status, out, err = self.mpfrun("--tuning", tuning, "-n", "2", "echo", "ran")
        self.assertEqual(status, 2)
        self.assertEqual(out, "")
        self.assertEqual(err, f"mpfrun: tuning file {tuning}: machine field 'cpus' is a JSON string (\"2\"); "
                              "expected an integer of at least 1\n")

    def test_every_rank_gets_the_launchers_values(self):
        env = dict(self.env, MPF_STOP_GRACE_MS="1234")
        status, out, err = self.mpfrun("-n", "3", program("print_tunables"), "stop_grace_ms", "run_dir", env=env)
        self.assertEqual(status, 0, err)
        self.assertEqual(out.count("stop_grace_ms=1234 (env)"), 3)
        status, out, err = self.mpfrun("--set", "stop_grace_ms=99", "-n", "2", program("print_tunables"),
                                       "stop_grace_ms", env=env)
        self.assertEqual(out.count("stop_grace_ms=99 (set)"), 2)

    def test_bad_tuning_file_is_named(self):
        bad = os.path.join(self.tmpdir, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        status, _, err = self.mpfrun("--tuning", bad, "-n", "1", "true")
        self.assertEqual(status, 2)
        self.assertIn(bad, err)
        self.assertEqual(len(err.strip().splitlines()), 1)
        status, _, err = self.mpfrun("--tuning", os.path.join(self.tmpdir, "missing.json"), "-n", "1", "true")
        self.assertEqual(status, 2)
        self.assertIn("missing.json", err)

    def test_bad_collective_rule_is_refused_before_any_rank_starts(self):
        tuning = os.path.join(self.tmpdir, "rules.json")
        with open(tuning, "w") as f:
            json.dump({"mpf_tuning_version": 1, "tunables": {},
                       "collective_rules": [{"operation": "bcast", "algorithm": "slots"},
                                            {"operation": "bcast", "algorithm": "bruck"}]}, f)
        status, out, err = self.mpfrun("--tuning", tuning, "-n", "2", "echo", "ran")
        self.assertEqual(status, 2)
        self.assertEqual(out, "")
        self.assertEqual(err.strip(),
                         f"mpfrun: tuning file {tuning}: collective_rules[1]: field 'algorithm' is 'bruck', not an "
                         "algorithm of bcast; expected one of: board, board_stage, cells, single_copy, slots, messages, "
                         "hierarchical")

    def test_unknown_environment_tunable_is_an_error(self):
        env = dict(self.env, MPF_STOP_GRACE="5")
        status, _, err = self.mpfrun("-n", "1", "true", env=env)
        self.assertEqual(status, 2)
        self.assertIn("MPF_STOP_GRACE", err)


class Report(JobTestCase):
    def test_report_validates_and_describes_the_job(self):
        path = os.path.join(self.tmpdir, "report.json")
        status, _, _ = self.mpfrun("--report", path, "-n", "3", ACTIONS, "hello")
        self.assertEqual(status, 0)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, self.load_schema("mpfrun-report.schema.json"))
        self.assertEqual(report["job"]["ranks"], 3)
        self.assertEqual(report["job"]["exit_status"], 0)
        self.assertEqual([r["rank"] for r in report["ranks"]], [0, 1, 2])
        for r in report["ranks"]:
            self.assertEqual(r["exit_code"], 0)
            self.assertEqual(r["state"], "finalized")
            self.assertGreaterEqual(r["counters"]["pmix_fences"], 1)  # MPI_Finalize fences
        names = {t["name"] for t in report["tunables"]}
        self.assertIn("stop_grace_ms", names)
        os.unlink(path)
        self.assert_clean()

    def test_report_of_a_job_on_virtual_nodes_names_each_ranks_node(self):
        path = os.path.join(self.tmpdir, "report.json")
        status, _, err = self.mpfrun("--report", path, "--virtual-nodes", "2", "-n", "4", ACTIONS, "hello")
        self.assertEqual(status, 0, err)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, self.load_schema("mpfrun-report.schema.json"))
        self.assertEqual(report["job"]["nodes"], 2)
        self.assertEqual(report["job"]["transports"], ["shared memory", "network"])
        self.assertEqual(report["job"]["network_provider"], "tcp;ofi_rxm")
        nodes = [r["node"] for r in report["ranks"]]
        self.assertEqual(nodes[0], nodes[1])
        self.assertEqual(nodes[2], nodes[3])
        self.assertNotEqual(nodes[0], nodes[2])
        self.assertTrue(nodes[0].endswith("/node0") and nodes[2].endswith("/node1"), nodes)
        # The world's collectives across nodes go by messages: within each
        # node, then between the nodes, where there is a hierarchical form
        # (a reduction's for commutative operations), else flat.
        plan = report["collective_plan"]
        self.assertFalse(plan["board"])
        chosen = {(r["operation"], r.get("reduction", "any"), r["algorithm"]) for r in plan["rules"]}
        for op in ("barrier", "bcast"):
            self.assertIn((op, "any", "hierarchical"), chosen)
        for op in ("reduce", "allreduce"):
            self.assertIn((op, "commutative", "hierarchical"), chosen)
            self.assertIn((op, "any", "messages"), chosen)
        self.assertEqual({a for o, _, a in chosen if o in ("allgather", "alltoall")}, {"messages"})
        os.unlink(path)
        self.assert_clean()

    def test_an_unknown_network_provider_is_named_with_those_this_machine_has(self):
        status, _, err = self.mpfrun("--virtual-nodes", "2", "-n", "2", "--set", "net_provider=nosuch",
                                     ACTIONS, "hello")
        self.assertNotEqual(status, 0)
        self.assertIn("net_provider 'nosuch': it offers no reliable-datagram endpoint", err)
        self.assertIn("this machine has: ", err)
        self.assert_clean()

    def test_the_first_network_provider_this_machine_has_is_taken(self):
        status, out, err = self.mpfrun("--virtual-nodes", "2", "-n", "2", "--set", "net_provider=nosuch,tcp;ofi_rxm",
                                       ACTIONS, "hello")
        self.assertEqual(status, 0, err)
        self.assertEqual(len(re.findall(r"(?m)^hello from rank", out)), 2, out)
        status, _, err = self.mpfrun("--virtual-nodes", "2", "-n", "2", "--set", "net_provider=nosuch,nothing",
                                     ACTIONS, "hello")
        self.assertNotEqual(status, 0)
        self.assertIn("net_provider 'nosuch,nothing': none of these providers offers", err)
        self.assert_clean()

    def test_report_shows_the_worlds_collective_plan(self):
        tuning = os.path.join(self.tmpdir, "rules.json")
        tuned = {"operation": "bcast", "max_bytes": 1024, "algorithm": "slots", "radix": 2}
        with open(tuning, "w") as f:
            json.dump({"mpf_tuning_version": 1, "tunables": {}, "collective_rules": [tuned]}, f)
        path = os.path.join(self.tmpdir, "report.json")
        status, _, err = self.mpfrun("--tuning", tuning, "--set", "coll_exchange_max=8", "--report", path,
                                     "-n", "2", ACTIONS, "hello")
        self.assertEqual(status, 0, err)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, self.load_schema("mpfrun-report.schema.json"))
        plan = report["collective_plan"]
        self.assertEqual(plan["ranks"], 2)
        self.assertFalse(plan["board"])
        bcast = [r for r in plan["rules"] if r["operation"] == "bcast"]
        self.assertEqual(bcast[0], tuned)
        self.assertEqual(bcast[1]["min_bytes"], 1024)
        self.assertEqual(bcast[1]["algorithm"], "cells")
        barrier = [r for r in plan["rules"] if r["operation"] == "barrier"]
        self.assertEqual(barrier, [{"operation": "barrier", "algorithm": "dissemination"}])
        os.unlink(path)

    def test_report_counts_messages_per_protocol(self):
        path = os.path.join(self.tmpdir, "report.json")
        status, _, err = self.mpfrun("--report", path, "-n", "2", program("introspect_blocked"))
        self.assertEqual(status, 0, err)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, self.load_schema("mpfrun-report.schema.json"))
        sender, receiver = report["ranks"][0]["counters"], report["ranks"][1]["counters"]
        self.assertEqual(sender["short_sent"], 2)
        self.assertEqual(sender["short_bytes"], 8)
        self.assertEqual(receiver["received"], 2)
        self.assertGreaterEqual(receiver["unexpected"], 1)  # tag 3 waits while tag 7 is wanted
        os.unlink(path)

    def test_report_of_a_failed_job(self):
        path = os.path.join(self.tmpdir, "report.json")
        status, _, _ = self.mpfrun("--report", path, "-n", "2", ACTIONS, "crash", "1")
        self.assertEqual(status, 139)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, self.load_schema("mpfrun-report.schema.json"))
        self.assertEqual(report["job"]["exit_status"], 139)
        self.assertIn("killed by signal 11", report["job"]["outcome"])
        self.assertEqual(report["ranks"][1]["signal"], 11)
        self.assertIsNone(report["ranks"][1]["exit_code"])
        os.unlink(path)

    def test_unwritable_report_is_refused_before_the_job_runs(self):
        status, out, err = self.mpfrun("--report", "/nonexistent-dir/r.json", "-n", "1", "echo", "ran")
        self.assertEqual(status, 2)
        self.assertIn("--report /nonexistent-dir/r.json: cannot be written", err)
        self.assertEqual(out, "")


class Verbose(JobTestCase):
    def test_verbose_describes_the_job(self):
        status, _, err = self.mpfrun("-v", "-n", "4", "true")
        self.assertEqual(status, 0)
        self.assertRegex(err, r"mpfrun: job \d+: 4 ranks on \d+ cpus?")


if __name__ == "__main__":
    unittest.main()
