"""Jobs across nodes under a resource manager: a Slurm cluster of four
virtual nodes on this machine (tests/harness/slurm_cluster.py), started once
for these tests, runs the same binaries as mpfrun does with srun --mpi=pmix;
the ranks of each node share a segment they make themselves and reach the
other nodes through the network transport. And the launchers the toolkit
refuses: PMI-1/PMI-2 ones (MPICH's hydra, srun --mpi=pmi2) and srun without
PMIx.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tempfile
import unittest

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
from slurm_cluster import SlurmCluster  # noqa: E402

MPFRUN = os.environ["MPFRUN"]
MPFINSPECT = os.environ["MPFINSPECT"]
PROGRAMS = os.environ["MPF_PROGRAMS"]
MPI_PROGRAMS = os.environ["MPF_MPI_PROGRAMS"]
JOB_TIMEOUT = 120


def job_actions():
    return os.path.join(PROGRAMS, "job_actions")


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def cluster_processes(program):
    """Processes of `program` that this file's cluster started (their
    environment names its slurm.conf): not those of tests running beside."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if program.encode() not in f.read():
                    continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if f"SLURM_CONF={CLUSTER.conf}".encode() in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def segment_inode(pid):
    """The inode of the toolkit's node segment that process `pid` maps."""
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            if "memfd:mpf-job-" in line:
                return int(line.split()[4])
    return None


def inspect_running_steps(env):
    """What mpfinspect shows of every job step running on the cluster (the
    tests of this file run one at a time): the dump a hung test prints."""
    steps = subprocess.run(["squeue", "-h", "-s", "-o", "%i"], capture_output=True, text=True, env=env,
                           timeout=30).stdout.split()
    dump = ""
    for step in steps:
        for args in ([step], [step, "--deadlock"]):
            r = subprocess.run([MPFINSPECT, *args], capture_output=True, text=True, env=env, timeout=60)
            dump += f"$ mpfinspect {' '.join(args)}\n{r.stdout}{r.stderr}"
    return dump


# One cluster for every test of this file, started once.
CLUSTER = SlurmCluster(nodes=4)


def setUpModule():
    CLUSTER.start()


def tearDownModule():
    CLUSTER.stop()


class ClusterTestCase(unittest.TestCase):
    """A test that talks to the cluster: its environment names the cluster
    and holds no tunables of the caller's."""

    def setUp(self):
        self.env = {k: v for k, v in CLUSTER.env.items() if not k.startswith("MPF_")}
        self.env["MPF_TUNING_FILE"] = ""


class Cluster(ClusterTestCase):

    def srun(self, *args, env=None, timeout=JOB_TIMEOUT):
        """Runs srun to completion; returns (status, stdout, stderr), with how
        long it took in self.seconds. A job
        that outlives `timeout` is cancelled and the test fails with what it
        printed."""
        # --overcommit: more ranks than a virtual node has CPUs, as mpfrun allows.
        proc = subprocess.Popen(["srun", "--overcommit", *args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env or self.env, text=True)
        start = time.monotonic()
        try:
            out, err = proc.communicate(timeout=timeout)
            self.seconds = time.monotonic() - start
        except subprocess.TimeoutExpired:
            dump = inspect_running_steps(self.env)
            subprocess.run(["scancel", "--user", "root"], env=self.env, timeout=30)
            out, err = proc.communicate(timeout=60)
            self.fail(f"srun {' '.join(args)} ran longer than {timeout} s:\n{out}\n{err}\n{dump}")
        return proc.returncode, out, err

    def test_ranks_on_two_nodes_greet_each_other(self):
        status, out, err = self.srun("--mpi=pmix", "-N", "2", "-n", "4", job_actions(), "hello")
        self.assertEqual(status, 0, err)
        # Ranks 0-1 on the allocation's first node, 2-3 on its second.
        nodes = dict(re.findall(r"^hello from rank (\d) of 4 on (n\d)$", out, re.M))
        self.assertEqual(sorted(nodes), ["0", "1", "2", "3"], out)
        self.assertEqual(nodes["0"], nodes["1"], out)
        self.assertEqual(nodes["2"], nodes["3"], out)
        self.assertNotEqual(nodes["0"], nodes["2"], out)

    def test_self_checking_mpi_programs_across_two_and_three_nodes(self):
        cases = [
            ("collectives", 3, 5, []),
            ("collectives", 2, 4, []),
            ("ordering", 2, 5, []),
            ("comms", 2, 4, []),
            ("nbc", 3, 4, []),
            ("intercomm", 2, 4, []),
            ("bigmsg", 2, 2, ["64"]),
            ("send_modes", 2, 2, ["64", "4096"]),
        ]
        for program, nodes, ranks, args in cases:
            with self.subTest(program=program, nodes=nodes, ranks=ranks):
                status, out, err = self.srun("--mpi=pmix", "-N", str(nodes), "-n", str(ranks),
                                             os.path.join(MPI_PROGRAMS, program), *args)
                self.assertEqual(status, 0, out + err)
                self.assertRegex(out, rf"(?m)^{program} ok")
                print(f"{program} on {nodes} nodes, {ranks} ranks: {self.seconds:.1f} s", file=sys.stderr)

    def test_a_flood_across_nodes_throttles_its_senders(self):
        # Two senders on one node flood a receiver on another with 100 000
        # unexpected messages each, into a 64 KiB unexpected pool.
        env = dict(self.env, MPF_UNEXPECTED_POOL="64KiB")
        status, out, err = self.srun("--mpi=pmix", "-N", "2", "-n", "3", "--distribution=cyclic",
                                     os.path.join(MPI_PROGRAMS, "flood"), "two", "100000", env=env)
        self.assertEqual(status, 0, out + err)
        self.assertRegex(out, r"(?m)^flood ok: two, 100000 messages from each of 2 senders")

    def test_a_rank_killed_on_one_node_ends_the_job_everywhere(self):
        start = time.monotonic()
        status, out, err = self.srun("--mpi=pmix", "-N", "2", "-n", "4", job_actions(), "crash", "3")
        self.assertEqual(status, 128 + signal.SIGSEGV, err)
        self.assertLess(time.monotonic() - start, 60)
        self.assertEqual(cluster_processes(job_actions()), [], "ranks left behind")

    def test_a_rank_that_skips_finalize_fails_the_job(self):
        status, out, err = self.srun("--mpi=pmix", "-N", "2", "-n", "4", job_actions(), "no-finalize", "3")
        self.assertNotEqual(status, 0, err)
        self.assertRegex(err, r"without calling MPI_Finalize")

    def test_a_rank_that_exits_while_others_wait_for_it_ends_the_job(self):
        # Rank 1 exits 0 after MPI_Init while ranks 0 and 2 wait in MPI_Recv
        # for it: Slurm ends the step, and the rank says why.
        start = time.monotonic()
        status, out, err = self.srun("--mpi=pmix", "-N", "2", "-n", "3", job_actions(), "exit-waited", "1")
        self.assertNotEqual(status, 0, err)
        self.assertLess(time.monotonic() - start, 60)
        self.assertRegex(err, r"mpf: rank 1 \(on n\d\) is exiting without calling MPI_Finalize")
        self.assertEqual(cluster_processes(job_actions()), [], "ranks left behind")

    def test_ranks_on_different_nodes_never_share_a_segment(self):
        proc = subprocess.Popen(["srun", "--mpi=pmix", "-N", "2", "-n", "4", job_actions(), "wait-signal"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=self.env, text=True)
        try:
            pids = {}
            deadline = time.monotonic() + JOB_TIMEOUT
            while len(pids) < 4 and time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                m = re.match(r"ready (\d+) (\d+)", line)
                if m:
                    pids[int(m.group(1))] = int(m.group(2))
            self.assertEqual(sorted(pids), [0, 1, 2, 3], proc.stderr.read() if proc.poll() is not None else "")
            inodes = {rank: segment_inode(pid) for rank, pid in pids.items()}
            self.assertIsNotNone(inodes[0])
            self.assertEqual(inodes[0], inodes[1], "ranks 0 and 1 (node n1) share the node's segment")
            self.assertEqual(inodes[2], inodes[3], "ranks 2 and 3 (node n2) share the node's segment")
            self.assertNotEqual(inodes[0], inodes[2], "nodes n1 and n2 must not share a segment")
            for pid in pids.values():
                os.kill(pid, signal.SIGUSR1)
            out, err = proc.communicate(timeout=JOB_TIMEOUT)
            self.assertEqual(proc.returncode, 0, err)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()

    def test_srun_with_pmi2_or_without_pmix_is_refused(self):
        for mpi, expected in (("--mpi=pmi2", r"launcher that speaks PMI-1/PMI-2 only"),
                              ("--mpi=none", r"Slurm step started without PMIx")):
            with self.subTest(mpi=mpi):
                status, out, err = self.srun(mpi, "-N", "2", "-n", "2", job_actions(), "hello")
                self.assertNotEqual(status, 0)
                self.assertRegex(err, expected)
                self.assertNotIn("hello from rank", out, "ranks must not run as singletons")


class MpfrunInAllocation(ClusterTestCase):
    """mpfrun inside salloc -N 2: it launches through srun."""

    def salloc_mpfrun(self, *args, nodes=2, timeout=JOB_TIMEOUT):
        result = subprocess.run(["salloc", "-N", str(nodes), "--overcommit", MPFRUN, *args],
                                stdin=subprocess.DEVNULL, capture_output=True, text=True, env=self.env,
                                timeout=timeout)
        return result.returncode, result.stdout, result.stderr

    def test_mpfrun_launches_on_the_allocations_nodes(self):
        status, out, err = self.salloc_mpfrun("-n", "4", "--tag-output", job_actions(), "hello")
        self.assertEqual(status, 0, err)
        # Slurm picks the allocation's nodes: ranks 0-1 on its first, 2-3 on its second.
        nodes = dict(re.findall(r"(?m)^\[(\d)\] hello from rank \1 of 4 on (n\d)$", out))
        self.assertEqual(sorted(nodes), ["0", "1", "2", "3"], out)
        self.assertEqual(nodes["0"], nodes["1"], out)
        self.assertEqual(nodes["2"], nodes["3"], out)
        self.assertNotEqual(nodes["0"], nodes["2"], out)

    def test_tunables_reach_the_ranks(self):
        status, out, err = self.salloc_mpfrun("-n", "2", "--set", "stop_grace_ms=1234",
                                              os.path.join(PROGRAMS, "print_tunables"), "stop_grace_ms")
        self.assertEqual(status, 0, err)
        self.assertEqual(len(re.findall(r"(?m)^rank [01] stop_grace_ms=1234 ", out)), 2, out)

    def test_a_crash_names_the_rank_and_its_node(self):
        status, out, err = self.salloc_mpfrun("-n", "4", job_actions(), "crash", "3")
        self.assertEqual(status, 128 + signal.SIGSEGV, err)
        self.assertRegex(err, r"mpfrun: rank 3 \(on node n\d\) killed by signal 11 \(Segmentation fault\)")

    def test_timeout_stops_the_job(self):
        status, out, err = self.salloc_mpfrun("-n", "2", "--timeout", "3", job_actions(), "hang")
        self.assertEqual(status, 124, err)
        self.assertIn("mpfrun: timeout: the job ran longer than 3 s", err)

    def test_timeout_shows_the_job_as_mpfinspect_sees_it(self):
        # The diagnosis is read on both nodes through srun.
        status, out, err = self.salloc_mpfrun("-n", "2", "--timeout", "3", job_actions(), "recv-cycle")
        self.assertEqual(status, 124, err)
        self.assertIn("mpfrun: the job as mpfinspect sees it:", err)
        self.assertRegex(err, r"rank 0 \(pid \d+ on n\d\): blocked in MPI_Recv\(peer 1, tag 7")
        self.assertRegex(err, r"rank 1 \(pid \d+ on n\d\): blocked in MPI_Recv\(peer 0, tag 9")
        self.assertIn("rank 0 waits in MPI_Recv(source 1, tag 7) while rank 1 waits in MPI_Recv(source 0, tag 9)", err)

    def test_report_gives_every_rank_and_its_node(self):
        with open(os.path.join(os.environ["MPF_SCHEMAS"], "mpfrun-report.schema.json")) as f:
            schema = json.load(f)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "report.json")
            status, out, err = self.salloc_mpfrun("-n", "4", "--report", path, job_actions(), "hello")
            self.assertEqual(status, 0, err)
            with open(path) as f:
                report = json.load(f)
            jsonschema.validate(report, schema)
            self.assertEqual(os.listdir(tmp), ["report.json"], "the ranks' entries are removed")
        self.assertEqual(report["job"]["nodes"], 2)
        self.assertEqual(report["job"]["transports"], ["shared memory", "network"])
        self.assertRegex(report["job"]["jobid"], r"^\d+\.\d+$")
        self.assertEqual(report["job"]["outcome"], "all 4 ranks exited 0")
        ranks = report["ranks"]
        self.assertEqual([r["rank"] for r in ranks], [0, 1, 2, 3])
        self.assertEqual(ranks[0]["node"], ranks[1]["node"])
        self.assertNotEqual(ranks[1]["node"], ranks[2]["node"])
        for r in ranks:
            self.assertEqual((r["state"], r["exit_code"]), ("finalized", 0), r)
            self.assertGreater(r["pid"], 0)
            self.assertGreaterEqual(r["counters"]["pmix_fences"], 1, r)

        # A rank that crashed wrote nothing: srun's word is all the report has.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "report.json")
            status, out, err = self.salloc_mpfrun("-n", "4", "--report", path, job_actions(), "crash", "3")
            self.assertEqual(status, 128 + signal.SIGSEGV, err)
            with open(path) as f:
                report = json.load(f)
            jsonschema.validate(report, schema)
        crashed = report["ranks"][3]
        self.assertEqual((crashed["state"], crashed["signal"], crashed["exit_code"]), ("unknown", 11, None))
        self.assertRegex(crashed["node"], r"^n\d$")
        self.assertRegex(report["job"]["outcome"], r"^rank 3 \(on node n\d\) killed by signal 11")

    def test_options_slurm_decides_are_refused(self):
        for option in (["--bind-to", "core"], ["--map-by", "numa"], ["--virtual-nodes", "2"]):
            with self.subTest(option=option[0]):
                status, out, err = self.salloc_mpfrun("-n", "2", *option, job_actions(), "hello")
                self.assertEqual(status, 2, err)
                self.assertIn(f"mpfrun: {option[0]}: inside a Slurm allocation of 2 nodes", err)
                self.assertNotIn("hello from rank", out)

    def test_launcher_srun_outside_an_allocation_is_refused(self):
        env = {k: v for k, v in self.env.items() if not k.startswith("SLURM_JOB")}
        result = subprocess.run([MPFRUN, "--launcher", "srun", "-n", "2", job_actions(), "hello"],
                                capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn("not inside a Slurm allocation", result.stderr)


class InspectAcrossNodes(ClusterTestCase):
    """mpfinspect on a hung job srun started on two nodes, each node's part
    registered in its own run directory (as /tmp is a node's own): it is read
    on every node through srun and shown and analysed whole."""

    def setUp(self):
        super().setUp()
        # Nothing of the job is registered where mpfinspect runs.
        self.here = tempfile.TemporaryDirectory()
        self.env["MPF_RUN_DIR"] = self.here.name
        # Cyclic: ranks 0 and 2 on one node, rank 1 on the other; 0 and 1 wait for each
        # other across the nodes, 2 waits in MPI_Finalize.
        before = self.registered()
        self.job = subprocess.Popen(["srun", "--mpi=pmix", "--overcommit", "-N", "2", "-n", "3",
                                     "--distribution=cyclic", job_actions(), "recv-cycle"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=self.env, text=True)
        self.parts = []
        deadline = time.monotonic() + JOB_TIMEOUT
        while time.monotonic() < deadline and self.job.poll() is None and len(self.parts) < 2:
            time.sleep(0.1)
            self.parts = sorted(set(self.registered()) - set(before))
        self.assertEqual(len(self.parts), 2, "each node's first rank registers the node's part")
        self.jobid = os.path.basename(self.parts[0]).split("+")[0]
        self.nodes = [os.path.basename(p)[:-len(".json")].split("+")[1] for p in self.parts]
        time.sleep(0.5)  # the ranks reach their receives

    @staticmethod
    def registered():
        """The node parts registered in the nodes' run directories."""
        return [os.path.join(CLUSTER.run_dir(n), f) for n in CLUSTER.nodes if os.path.isdir(CLUSTER.run_dir(n))
                for f in os.listdir(CLUSTER.run_dir(n)) if f.endswith(f"+{n}.json")]

    def tearDown(self):
        subprocess.run(["scancel", self.jobid.split(".")[0]], env=self.env, timeout=30)
        self.job.communicate(timeout=JOB_TIMEOUT)
        self.here.cleanup()

    def inspect(self, *args):
        return subprocess.run([MPFINSPECT, *args], capture_output=True, text=True, env=self.env, timeout=60)

    def test_the_job_is_read_on_every_node_and_analysed_whole(self):
        result = self.inspect("--json", self.jobid)
        self.assertEqual(result.returncode, 0, result.stderr)
        state = json.loads(result.stdout)
        with open(os.path.join(os.environ["MPF_SCHEMAS"], "mpfinspect-job.schema.json")) as f:
            jsonschema.validate(state, json.load(f))
        self.assertEqual(state["job"]["launcher"], "srun")
        self.assertNotIn("mpfrun_pid", state["job"])
        first, second = self.nodes
        self.assertEqual([(n["name"], n["ranks"]) for n in state["job"]["nodes"]], [(first, [0, 2]), (second, [1])])
        ranks = {r["rank"]: r for r in state["ranks"]}
        self.assertEqual({r: ranks[r]["node"] for r in ranks}, {0: first, 1: second, 2: first})
        self.assertEqual((ranks[0]["blocked_in"]["function"], ranks[0]["blocked_in"]["peer"]), ("MPI_Recv", 1))
        self.assertEqual((ranks[1]["blocked_in"]["function"], ranks[1]["blocked_in"]["peer"]), ("MPI_Recv", 0))
        self.assertEqual(ranks[2]["blocked_in"]["kind"], "finalize")
        # The Slurm job id alone names its only step.
        result = self.inspect(self.jobid.split(".")[0], "--deadlock")
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn("rank 0 waits in MPI_Recv(source 1, tag 7) while rank 1 waits in MPI_Recv(source 0, tag 9)",
                      result.stdout)
        text = self.inspect(self.jobid).stdout
        self.assertIn(f"job {self.jobid}: 3 ranks on 2 nodes ({first}: ranks 0,2", text)
        self.assertIn("started by srun", text)

    def test_a_node_listing_shows_its_part(self):
        env = dict(self.env, MPF_RUN_DIR=CLUSTER.run_dir(self.nodes[1]))
        result = subprocess.run([MPFINSPECT], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"job {self.jobid}: 3 ranks, started by srun on 2 nodes (here: {self.nodes[1]})", result.stdout)

    def test_a_node_that_cannot_be_read_is_named(self):
        os.rename(self.parts[1], self.parts[1] + ".hidden")
        try:
            result = self.inspect(self.jobid)
        finally:
            os.rename(self.parts[1] + ".hidden", self.parts[1])
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn(f"mpfinspect: job {self.jobid}: 1 of its 2 nodes could not be read (node {self.nodes[1]}: "
                      "mpfinspect found no part of the job registered there)", result.stderr)


HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness")


@unittest.skipIf(shutil.which("mpirun.openmpi") is None, "Open MPI's mpirun is not installed")
class OpenMpiHost(unittest.TestCase):
    """Open MPI's mpirun as the PMIx host, with ssh replaced by a script that
    runs each "node" here in a UTS namespace of its name, all inside a
    network namespace of the test's own (loopback only)."""

    def mpirun(self, *program):
        script = ("ip link set lo up && exec mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "
                  f"{os.path.join(HARNESS, 'fakessh')} -host n1:2,n2:2 -n 4 \"$@\"")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MPF_", "PMIX_", "SLURM_", "OMPI_"))}
        env["MPF_TUNING_FILE"] = ""
        return subprocess.run(["unshare", "-n", "sh", "-c", script, "sh", *program], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, env=env, timeout=JOB_TIMEOUT)

    def test_ranks_on_two_nodes_of_mpirun(self):
        result = self.mpirun(job_actions(), "hello")
        self.assertEqual(result.returncode, 0, result.stderr)
        nodes = dict(re.findall(r"^hello from rank (\d) of 4 on (n\d)$", result.stdout, re.M))
        self.assertEqual(nodes, {"0": "n1", "1": "n1", "2": "n2", "3": "n2"}, result.stdout)

    def test_collectives_across_mpiruns_nodes(self):
        result = self.mpirun(os.path.join(MPI_PROGRAMS, "collectives"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertRegex(result.stdout, r"(?m)^collectives ok: 4 ranks")


@unittest.skipIf(shutil.which("mpiexec.hydra") is None, "MPICH's mpiexec.hydra is not installed")
class Hydra(unittest.TestCase):
    def test_hydra_is_refused_not_run_as_singletons(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MPF_", "PMIX_", "SLURM_"))}
        result = subprocess.run(["mpiexec.hydra", "-launcher", "fork", "-n", "2", job_actions(), "hello"],
                                stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60)
        self.assertNotEqual(result.returncode, 0)
        self.assertRegex(result.stderr, r"PMI-1/PMI-2 only \(PMI_RANK=[01], PMI_SIZE=2")
        self.assertNotIn("hello from rank", result.stdout)


if __name__ == "__main__":
    unittest.main()
