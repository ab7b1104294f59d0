"""mpftune bench end to end (tests/tune/CMakeLists.txt runs it with CTest).

CTest passes the paths through the environment:
  MPFTUNE       the mpftune binary under test
  MPF_SCHEMAS   directory of the JSON schemas (share/schemas)

Nothing here asserts on a measured figure: the tests check that the command
refuses bad input, that what it writes follows its schema, and that
--compare builds and runs the same kernels with every other MPI and
OpenSHMEM installed (and says so clearly when there is none).
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import jsonschema

MPFTUNE = os.environ["MPFTUNE"]
SCHEMAS = os.environ["MPF_SCHEMAS"]
TIMEOUT = 300
# id: (compiler, launcher, the programs they must be when their names do not say whose they are)
PEERS = {"openmpi": ("mpicc.openmpi", "mpirun.openmpi", None),
         "mpich": ("mpicc.mpich", "mpiexec.mpich", None),
         "oshmem": ("oshcc", "oshrun", ("mpicc.openmpi", "mpirun.openmpi"))}
MPI_PEERS = ("openmpi", "mpich")
SHMEM_KERNELS = ("shmem_latency", "shmem_bw", "shmem_collectives", "shmem_startup")


def installed(peer):
    compiler, launcher, same_as = PEERS[peer]
    found = [shutil.which(compiler), shutil.which(launcher)]
    if not all(found):
        return False
    if same_as is None:
        return True
    reference = [shutil.which(t) for t in same_as]
    return all(reference) and all(os.path.samefile(f, r) for f, r in zip(found, reference))


def installed_peers():
    return [peer for peer in PEERS if installed(peer)]


class BenchTestCase(unittest.TestCase):
    def setUp(self):
        self.tmpdir = tempfile.mkdtemp(prefix="mpf-tune-test-")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MPF_")}
        # The toolkit's defaults, whatever tuning file this machine has.
        self.env["MPF_TUNING_FILE"] = ""
        self.env["TMPDIR"] = self.tmpdir
        self.env["XDG_CACHE_HOME"] = os.path.join(self.tmpdir, "cache")

    def tearDown(self):
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def mpftune(self, *args):
        result = subprocess.run([MPFTUNE, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                env=self.env, timeout=TIMEOUT)
        return result.returncode, result.stdout, result.stderr

    def validate(self, path):
        with open(os.path.join(SCHEMAS, "mpftune-bench.schema.json")) as f:
            schema = json.load(f)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, schema, format_checker=jsonschema.FormatChecker())
        return report


class BadInput(BenchTestCase):
    def assert_usage_error(self, args, names):
        status, out, err = self.mpftune(*args)
        self.assertEqual(status, 2, f"mpftune {' '.join(args)}: status {status}\n{err}")
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, f"mpftune {' '.join(args)}: expected one line, got:\n{err}")
        self.assertTrue(lines[0].startswith("mpftune: "), lines[0])
        self.assertIn(names, lines[0])
        self.assertEqual(out, "")

    def test_bad_options_name_the_option_and_exit_2(self):
        cases = [
            (["bench", "--np", "0"], "--np"),
            (["bench", "--np", "two"], "--np"),
            (["bench", "--kernels", "pingpong,nope"], "nope"),
            (["bench", "--repeat", "0"], "--repeat"),
            (["bench", "--reps", "x"], "--reps"),
            (["bench", "--rep-ms", "-5"], "--rep-ms"),
            (["bench", "--bind-to", "socket"], "--bind-to"),
            (["bench", "--timeout", "0"], "--timeout"),
            (["bench", "--frobnicate"], "--frobnicate"),
            (["bench", "--json"], "--json"),
            (["tune"], "tune"),
        ]
        for args, names in cases:
            with self.subTest(args=args):
                self.assert_usage_error(args, names)

    def test_unwritable_outputs_are_refused_before_running(self):
        missing = os.path.join(self.tmpdir, "no", "such", "dir", "bench.json")
        self.assert_usage_error(["bench", "--json", missing], "--json")
        blocker = os.path.join(self.tmpdir, "file")
        open(blocker, "w").close()
        self.assert_usage_error(["bench", "--out", os.path.join(blocker, "sub")], "--out")

    def test_nothing_to_run_is_a_usage_error(self):
        self.assert_usage_error(["bench", "--kernels", "token_ring", "--np", "1"], "token_ring")


class Bench(BenchTestCase):
    def test_list_kernels(self):
        status, out, _ = self.mpftune("bench", "--list-kernels")
        self.assertEqual(status, 0)
        for kernel in ("pingpong", "bw", "bibw", "msgrate", "flood", "collectives", "token_ring", "startup",
                       *SHMEM_KERNELS):
            self.assertRegex(out, rf"(?m)^{kernel} ")

    def test_help_and_version(self):
        status, out, _ = self.mpftune("bench", "--help")
        self.assertEqual(status, 0)
        self.assertIn("--compare", out)
        status, out, _ = self.mpftune("--version")
        self.assertEqual(status, 0)
        self.assertIn("(MPF Toolkit)", out)

    def test_toolkit_alone_writes_json_that_follows_the_schema(self):
        path = os.path.join(self.tmpdir, "bench.json")
        status, out, err = self.mpftune("bench", "--quick", "--kernels", "pingpong,token_ring,startup",
                                        "--np", "2,3", "--repeat", "2", "--json", path)
        self.assertEqual(status, 0, err)
        report = self.validate(path)
        self.assertEqual([i["id"] for i in report["implementations"]], ["mpf"])
        self.assertEqual(report["settings"]["np"], [2, 3])
        runs = {(r["kernel"], r["np"]) for r in report["runs"]}
        self.assertEqual(runs, {("pingpong", 2), ("token_ring", 2), ("token_ring", 3), ("startup", 2), ("startup", 3)})
        self.assertEqual(len(report["runs"]), 10, "two repetitions of each run")
        self.assertTrue(all(r["status"] == "ok" for r in report["runs"]), report["runs"])
        kernels = {(r["kernel"], r["np"], r["bytes"]) for r in report["results"]}
        self.assertIn(("pingpong", 2, 0), kernels)
        self.assertIn(("startup", 3, None), kernels)
        self.assertEqual(report["comparison"], [])
        self.assertIn("pingpong, 2 ranks (us, lower is better)", out)
        self.assertIn("startup (ms, lower is better)", out)

    def test_shmem_kernels_alone_write_json_that_follows_the_schema(self):
        path = os.path.join(self.tmpdir, "bench.json")
        status, out, err = self.mpftune("bench", "--quick", "--kernels", ",".join(SHMEM_KERNELS), "--np", "2,3",
                                        "--json", path)
        self.assertEqual(status, 0, err)
        report = self.validate(path)
        self.assertTrue(all(r["status"] == "ok" for r in report["runs"]), report["runs"])
        runs = {(r["kernel"], r["np"]) for r in report["runs"]}
        self.assertEqual(runs, {("shmem_latency", 2), ("shmem_latency", 3), ("shmem_bw", 2), ("shmem_collectives", 2),
                                ("shmem_collectives", 3), ("shmem_startup", 2), ("shmem_startup", 3)})
        points = {(r["kernel"], r["op"], r["np"], r["bytes"]) for r in report["results"]}
        for point in [("shmem_latency", "put", 2, None), ("shmem_latency", "get", 2, 4096),
                      ("shmem_latency", "fetch_add", 2, None), ("shmem_latency", "fetch_add_all", 3, None),
                      ("shmem_bw", "put", 2, 1048576), ("shmem_bw", "get", 2, 8),
                      ("shmem_collectives", "barrier_all", 3, None), ("shmem_collectives", "broadcast", 3, 4096),
                      ("shmem_collectives", "sum_reduce", 2, 8), ("shmem_startup", "-", 3, None)]:
            self.assertIn(point, points)
        self.assertNotIn(("shmem_latency", "put", 3, None), points, "put runs with 2 PEs only")
        self.assertIn("OpenSHMEM 1.5", report["implementations"][0]["library"])
        self.assertIn("shmem_latency fetch_add_all (us, lower is better)", out)

    def test_compare_shmem_kernels_with_oshmem(self):
        if not installed("oshmem"):
            self.skipTest("Open MPI's OSHMEM is not installed (Debian: openmpi-bin libopenmpi-dev): the OpenSHMEM "
                          "kernels have nothing to compare with")
        out_dir = os.path.join(self.tmpdir, "perf")
        status, out, err = self.mpftune("bench", "--compare", "--quick", "--kernels", ",".join(SHMEM_KERNELS),
                                        "--np", "2,3", "--out", out_dir)
        report = self.validate(os.path.join(out_dir, "bench.json"))
        # Only OpenSHMEM's implementations take part.
        self.assertEqual([i["id"] for i in report["implementations"]], ["mpf", "oshmem"])
        oshmem = report["implementations"][1]
        self.assertEqual(sorted(oshmem["kernels"]), sorted(SHMEM_KERNELS))
        self.assertEqual(oshmem["unavailable"], {})
        self.assertIn("OSHMEM", oshmem["library"])
        # OSHMEM may fail in shmem_finalize after its results (Open MPI 4.1
        # does on some machines): its results count, and the run says so.
        for r in report["runs"]:
            self.assertIn(r["status"], ("ok", "failed_at_exit"), r)
            if r["implementation"] == "mpf":
                self.assertEqual(r["status"], "ok", r)
            if r["status"] == "failed_at_exit":
                self.assertIn("after printing all its results", r["message"])
                self.assertIn(f"{r['kernel']} np={r['np']} with Open MPI OSHMEM", err)
        self.assertEqual(status, 0, err)
        measured = {(r["implementation"], r["kernel"]) for r in report["results"]}
        for kernel in SHMEM_KERNELS:
            self.assertIn(("oshmem", kernel), measured)
        compared = {c["kernel"] for c in report["comparison"]}
        self.assertEqual(compared, set(SHMEM_KERNELS))
        self.assertTrue(all(c["best_peer"] == "oshmem" for c in report["comparison"]))
        with open(os.path.join(out_dir, "report.md")) as f:
            markdown = f.read()
        if any(r["status"] == "failed_at_exit" for r in report["runs"]):
            self.assertIn("## Runs that failed after printing all their results", markdown)
        # A table of an OpenSHMEM kernel has no column for the MPIs.
        self.assertNotIn("| Open MPI |", markdown)

    def test_compare_quick_against_installed_peers(self):
        peers = installed_peers()
        if not peers:
            self.skipTest("no other MPI installed (Debian: openmpi-bin libopenmpi-dev, mpich libmpich-dev): "
                          "--compare has nothing to compare with")
        out_dir = os.path.join(self.tmpdir, "perf")
        status, out, err = self.mpftune("bench", "--compare", "--quick", "--out", out_dir)
        report = self.validate(os.path.join(out_dir, "bench.json"))
        # The toolkit's runs all finish. A peer's may not (Open MPI 4.1 crashes
        # in MPI_Compare_and_swap on MPI_Win_allocate windows): then the exit
        # status says a run failed, and the report names it.
        failed = [r for r in report["runs"] if r["status"] not in ("ok", "failed_at_exit")]
        self.assertEqual([r for r in failed if r["implementation"] == "mpf"], [], err)
        self.assertEqual(status, 1 if failed else 0, err)
        for r in failed:
            self.assertIn(f"{r['kernel']} np={r['np']} with ", err)
        ids = [i["id"] for i in report["implementations"]]
        self.assertEqual(ids, ["mpf"] + peers)
        for peer in report["implementations"][1:]:
            # Every kernel of its interface; the MPF ones are the toolkit's
            # alone, and the MPIs say so.
            if peer["id"] in MPI_PEERS:
                self.assertEqual(sorted(peer["unavailable"]), ["conversations", "gauss_jordan", "sor"],
                                 f"{peer['id']} did not build every kernel")
                self.assertFalse(set(peer["kernels"]) & set(SHMEM_KERNELS))
            else:
                self.assertEqual(peer["unavailable"], {}, f"{peer['id']} did not build every kernel")
                self.assertEqual(sorted(peer["kernels"]), sorted(SHMEM_KERNELS))
            for kernel in peer["unavailable"]:
                self.assertIn("uses MPF conversations", peer["unavailable"][kernel])
            self.assertTrue(peer["library"], f"{peer['id']} did not say which library it is")
            for kernel in peer["kernels"].values():
                self.assertTrue(kernel.startswith(os.path.join(out_dir, "build", peer["id"])), kernel)
        self.assertTrue(report["comparison"], "no point measured by the toolkit and a peer")
        for c in report["comparison"]:
            self.assertIn(c["best_peer"], peers)
        # Every implementation ran the kernels it has, in every repetition.
        ran = {(r["implementation"], r["kernel"]) for r in report["runs"]}
        for impl in report["implementations"]:
            for kernel in impl["kernels"]:
                self.assertIn((impl["id"], kernel), ran)
        mpf = report["implementations"][0]
        if "collectives" in mpf["unavailable"]:
            self.assertIn("kernel collectives is not built for mpf", err)
            self.assertTrue(any(r["kernel"] == "collectives" for r in report["results"]),
                            "the peers did not run the collectives kernel")
        with open(os.path.join(out_dir, "report.md")) as f:
            markdown = f.read()
        self.assertIn("| ratio | faster peer |", markdown)
        # The report names the binding it used (the default, as mpfrun's own).
        self.assertIn("or more that divide evenly among them, and not bound otherwise (`--bind-to auto`)", markdown)
        if shutil.which("gnuplot"):
            for plot in ("latency.png", "bandwidth.png", "startup.png"):
                with open(os.path.join(out_dir, plot), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", plot)
                self.assertIn(f"]({plot})", markdown)
        else:
            self.assertIn("gnuplot is not installed", markdown)
        # A second run reuses the peers' kernels instead of building them again.
        status, _, err = self.mpftune("bench", "--compare", "--quick", "--kernels", "pingpong", "--out", out_dir,
                                      "--progress")
        self.assertEqual(status, 0, err)
        self.assertNotIn("built ", err)


if __name__ == "__main__":
    unittest.main()
