"""mpftune search end to end (tests/tune/CMakeLists.txt runs it with CTest).

CTest passes the paths through the environment:
  MPFTUNE       the mpftune binary under test
  MPFRUN        the mpfrun binary of the same build
  HELLO_PROGRAM     the hello example (share/examples/hello.c), the application of --app
  MPF_SCHEMAS   directory of the JSON schemas (share/schemas)

Nothing here asserts on a measured figure or on which values the search
picks (the unit tests, tests/tune/search_test.cpp, check that on a cost
model): these check that a short search writes a tuning file the next job
loads and a report that follows its schema, that Ctrl-C keeps what was
measured for --resume, and that bad input gets a clear error.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import jsonschema

MPFTUNE = os.environ["MPFTUNE"]
MPFRUN = os.environ["MPFRUN"]
HELLO = os.environ["HELLO_PROGRAM"]
SCHEMAS = os.environ["MPF_SCHEMAS"]
TIMEOUT = 400


class SearchTestCase(unittest.TestCase):
    def setUp(self):
        self.tmpdir = tempfile.mkdtemp(prefix="mpf-search-test-")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MPF_")}
        self.env["TMPDIR"] = self.tmpdir
        self.tuning = os.path.join(self.tmpdir, "etc", "tuning.json")
        self.out = os.path.join(self.tmpdir, "report")

    def tearDown(self):
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def mpftune(self, *args):
        result = subprocess.run([MPFTUNE, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                env=self.env, timeout=TIMEOUT)
        return result.returncode, result.stdout, result.stderr

    def search_args(self, *tunables):
        return ["--quick", "--tunables", ",".join(tunables), "--output", self.tuning, "--out", self.out]

    def journal_jobs(self):
        try:
            with open(os.path.join(self.out, "journal.jsonl")) as f:
                return sum(1 for line in f if line.strip()) - 1
        except FileNotFoundError:
            return 0


class TestSearch(SearchTestCase):
    def test_quick_search_writes_a_tuning_file_the_next_job_loads(self):
        code, out, err = self.mpftune(*self.search_args("short_limit", "ring_slots"), "--progress")
        self.assertEqual(code, 0, err)
        self.assertIn("mpftune: [1/3] short_limit:", err)
        self.assertIn("verification", err)
        self.assertIn("wrote " + self.tuning, out)

        with open(self.tuning) as f:
            tuning = json.load(f)
        self.assertEqual(tuning["mpf_tuning_version"], 1)
        machine = tuning["machine"]
        self.assertEqual(machine["cpus"], os.cpu_count())
        for field in ("cpu_model", "memory_bytes", "kernel", "toolkit_version", "date"):
            self.assertIn(field, machine)
        self.assertLessEqual(set(tuning["tunables"]), {"short_limit", "ring_slots"})

        with open(os.path.join(self.out, "report.json")) as f:
            report = json.load(f)
        with open(os.path.join(SCHEMAS, "mpftune-search.schema.json")) as f:
            jsonschema.validate(report, json.load(f))
        self.assertEqual(report["status"], "finished")
        self.assertEqual([t["name"] for t in report["tunables"]], ["short_limit", "ring_slots"])
        self.assertEqual(report["chosen"], tuning["tunables"])
        for t in report["tunables"]:
            self.assertTrue(t["why"], t)
            self.assertTrue(t["curves"] or t["skipped"], t)
        with open(os.path.join(self.out, "report.md")) as f:
            markdown = f.read()
        self.assertIn("## What was chosen", markdown)
        self.assertIn("### short_limit (crossover)", markdown)

        # The next job loads the file, and says where each value came from.
        listed = subprocess.run([MPFRUN, "--tuning", self.tuning, "--list-params"], capture_output=True, text=True,
                                env=self.env, timeout=60)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertNotIn("warning", listed.stderr)  # measured on this very machine
        rows = {line.split()[0]: line for line in listed.stdout.splitlines() if line.strip()}
        for name in tuning["tunables"]:
            self.assertIn("tuning file " + self.tuning, rows[name])
        job = subprocess.run([MPFRUN, "--tuning", self.tuning, "-n", "2", "--timeout", "60", "true"],
                             capture_output=True, text=True, env=self.env, timeout=90)
        self.assertEqual(job.returncode, 0, job.stderr)

    def test_interrupted_search_resumes_without_running_its_jobs_again(self):
        # One tunable whose search takes a dozen jobs; stopped after three.
        args = self.search_args("short_limit")
        process = subprocess.Popen([MPFTUNE, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=self.env)
        deadline = time.monotonic() + 120
        while self.journal_jobs() < 3 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=TIMEOUT)
        self.assertEqual(process.returncode, 130, err)
        self.assertIn("interrupted", out)
        self.assertFalse(os.path.exists(self.tuning), "an interrupted search wrote a tuning file")
        recorded = self.journal_jobs()
        self.assertGreaterEqual(recorded, 3)
        with open(os.path.join(self.out, "report.json")) as f:
            self.assertEqual(json.load(f)["status"], "interrupted")

        code, out, err = self.mpftune(*args, "--resume")
        self.assertEqual(code, 0, err)
        self.assertIn("resuming: %d jobs" % recorded, err)
        with open(os.path.join(self.out, "report.json")) as f:
            report = json.load(f)
        self.assertEqual(report["status"], "finished")
        self.assertEqual(report["replayed_jobs"], recorded)
        self.assertTrue(os.path.exists(self.tuning))

        # Resuming with other options is refused, naming what differs.
        code, out, err = self.mpftune(*self.search_args("short_limit", "ring_slots"), "--resume")
        self.assertEqual(code, 2)
        self.assertIn("belongs to another search", err)
        self.assertIn("tunables", err)


class TestApplication(SearchTestCase):
    def test_app_search_writes_an_application_tuning_file(self):
        code, out, err = self.mpftune("--app", HELLO, "-n", "2", "--tunables", "short_limit,rndv_mode",
                                      "--output", self.tuning, "--out", self.out)
        self.assertEqual(code, 0, err)
        with open(self.tuning) as f:
            tuning = json.load(f)
        self.assertLessEqual(set(tuning["tunables"]), {"short_limit", "rndv_mode"})
        with open(os.path.join(self.out, "report.json")) as f:
            report = json.load(f)
        with open(os.path.join(SCHEMAS, "mpftune-search.schema.json")) as f:
            jsonschema.validate(report, json.load(f))
        self.assertEqual(report["application"], {"command": HELLO, "np": 2})
        for t in report["tunables"]:
            self.assertEqual(t["method"], "choice")
            points = [p for c in t["curves"] for p in c["points"]]
            self.assertGreaterEqual(len(points), 2, t)
        job = subprocess.run([MPFRUN, "--tuning", self.tuning, "-n", "2", "--timeout", "60", HELLO],
                             capture_output=True, text=True, env=self.env, timeout=90)
        self.assertEqual(job.returncode, 0, job.stderr)

    def test_app_needs_its_rank_count(self):
        code, _, err = self.mpftune("--app", HELLO, "--out", self.out)
        self.assertEqual(code, 2)
        self.assertIn("--np", err)

    def test_an_app_that_fails_with_the_defaults_stops_the_search(self):
        code, out, err = self.mpftune("--app", "exit 3", "-n", "2", "--output", self.tuning, "--out", self.out)
        self.assertEqual(code, 1)
        self.assertIn("the application fails with the defaults", err)
        self.assertIn("exit status 3", err)
        self.assertFalse(os.path.exists(self.tuning))


class TestBadInput(SearchTestCase):
    def test_unknown_tunable(self):
        code, _, err = self.mpftune("--tunables", "eager_limt", "--out", self.out)
        self.assertEqual(code, 2)
        self.assertIn("'eager_limt' is not a tunable the search tunes", err)
        self.assertIn("eager_limit", err)

    def test_bad_budget(self):
        code, _, err = self.mpftune("--budget", "0")
        self.assertEqual(code, 2)
        self.assertIn("--budget", err)

    def test_resume_without_a_journal(self):
        code, _, err = self.mpftune("--resume", "--out", self.out, "--output", self.tuning)
        self.assertEqual(code, 2)
        self.assertIn("there is no journal", err)

    def test_unwritable_tuning_file(self):
        blocker = os.path.join(self.tmpdir, "file")
        open(blocker, "w").close()
        code, _, err = self.mpftune("--output", os.path.join(blocker, "tuning.json"), "--out", self.out)
        self.assertEqual(code, 1)
        self.assertIn("cannot write the tuning file", err)
        self.assertIn("--output FILE", err)

    def test_list_measures_nothing(self):
        code, out, err = self.mpftune("--list")
        self.assertEqual(code, 0, err)
        self.assertIn("eager_limit (point-to-point, crossover)", out)
        self.assertIn("unexpected_pool (buffers, smallest within noise)", out)
        self.assertIn("then verifies every kernel", out)


if __name__ == "__main__":
    unittest.main()
