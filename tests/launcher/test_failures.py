"""How mpfrun ends a job that fails, and that nothing is left behind (SPEC §6, §10)."""
import os
import re
import signal
import unittest

from mpfrun_testing import JobTestCase, program, wait_gone

ACTIONS = program("job_actions")
RANK_LINE = r"mpfrun: rank {rank} \(pid \d+ on [^)]+\) "


class FailingRanks(JobTestCase):
    def check(self, args, status, line):
        got, out, err = self.mpfrun(*args)
        self.assertEqual(got, status, err)
        self.assertRegex(err, line)
        self.assert_clean()
        return err

    def test_all_ranks_exit_0(self):
        self.check(["-n", "4", ACTIONS, "hello"], 0, r"^$")

    def test_segfault(self):
        self.check(["-n", "4", ACTIONS, "crash", "2"], 128 + 11,
                   RANK_LINE.format(rank=2) + r"killed by signal 11 \(Segmentation fault\); stopping 3 other ranks")

    def test_exit_code(self):
        self.check(["-n", "3", ACTIONS, "exit", "1", "7"], 7,
                   RANK_LINE.format(rank=1) + r"exited with code 7; stopping 2 other ranks")

    def test_mpi_abort(self):
        err = self.check(["-n", "4", ACTIONS, "abort", "3", "42"], 42,
                         RANK_LINE.format(rank=3) + r"aborted the job with code 42: MPI_Abort\(MPI_COMM_WORLD, 42\) "
                                                    r"called by rank 3; stopping 3 other ranks")
        self.assertNotIn("PMIX ERROR", err)

    def test_exit_without_finalize(self):
        self.check(["-n", "3", ACTIONS, "no-finalize", "0"], 1,
                   RANK_LINE.format(rank=0) + r"exited with code 0 without calling MPI_Finalize")

    def test_mpi_error_is_fatal_and_named(self):
        err = self.check(["-n", "2", ACTIONS, "bad-comm"], 5,
                         r"MPI_Comm_rank \(rank \d\): invalid communicator 12345")
        self.assertRegex(err, RANK_LINE.format(rank=r"\d") + "aborted the job with code 5")

    def test_non_mpi_program_failure(self):
        self.check(["-n", "2", "sh", "-c", "exit 3"], 3, RANK_LINE.format(rank=r"[01]") + "exited with code 3")

    def test_program_that_cannot_be_executed(self):
        script = os.path.join(self.tmpdir, "not-a-program")
        with open(script, "w") as f:
            f.write("\x7fELF garbage")
        os.chmod(script, 0o755)
        got, _, err = self.mpfrun("-n", "2", script)
        self.assertEqual(got, 2, err)
        self.assertRegex(err, r"mpfrun: cannot start rank 0: .*not-a-program: Exec format error")
        os.unlink(script)
        self.assert_clean()

    def test_timeout_names_the_ranks_still_running(self):
        err = self.check(["--timeout", "1", "-n", "3", ACTIONS, "hang"], 124,
                         r"mpfrun: timeout: the job ran longer than 1 s; ranks still running: 0-2 \(3 of 3\)")
        for rank in range(3):
            self.assertRegex(err, rf"mpfrun:   rank {rank} \(pid \d+\): running after MPI_Init")

    def test_rank_killed_with_sigkill(self):
        proc = self.start("-n", "3", ACTIONS, "wait-signal")
        ready = self.read_lines_until(proc, 3, r"^ready (\d+) (\d+)$")
        victim = next(m for m in ready if m.group(1) == "1")
        os.kill(int(victim.group(2)), signal.SIGKILL)
        status, _, err = self.finish(proc)
        self.assertEqual(status, 128 + 9)
        self.assertRegex(err, RANK_LINE.format(rank=1) + r"killed by signal 9 \(Killed\); stopping 2 other ranks")
        self.assert_clean()


class Scale(JobTestCase):
    def test_64_ranks_exchange_pmix_data_on_2_cores(self):
        status, out, err = self.mpfrun("-n", "64", program("wireup_exchange"), timeout=120)
        self.assertEqual(status, 0, err)
        ranks = sorted(int(m) for m in re.findall(r"^wireup ok: (\d+) of 64, 64 local", out, re.MULTILINE))
        self.assertEqual(ranks, list(range(64)))
        if len(os.sched_getaffinity(0)) < 64:
            self.assertEqual(out.count("oversubscribed 1"), 64)
        self.assert_clean()

    def test_singleton_without_mpfrun(self):
        import subprocess
        result = subprocess.run([ACTIONS, "hello"], capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"^hello from rank 0 of 1 on ")


class Signals(JobTestCase):
    def start_waiting_job(self, nranks=3):
        proc = self.start("-n", str(nranks), ACTIONS, "wait-signal")
        ready = self.read_lines_until(proc, nranks, r"^ready (\d+) (\d+)$")
        return proc, [int(m.group(2)) for m in ready]

    def test_sigusr1_and_sigusr2_are_forwarded(self):
        proc, _ = self.start_waiting_job()
        proc.send_signal(signal.SIGUSR1)
        status, out, err = self.finish(proc)
        self.assertEqual(status, 0, err)
        self.assertEqual(sorted(re.findall(r"rank (\d) got SIGUSR1", out)), ["0", "1", "2"])
        self.assert_clean()

    def test_stopping_signals_end_the_job(self):
        for signo, name in [(signal.SIGINT, "Interrupt"), (signal.SIGTERM, "Terminated"), (signal.SIGHUP, "Hangup")]:
            with self.subTest(signal=name):
                proc, pids = self.start_waiting_job()
                proc.send_signal(signo)
                status, _, err = self.finish(proc)
                self.assertEqual(status, 128 + signo)
                self.assertIn(f"mpfrun: received signal {int(signo)} ({name}); stopping 3 ranks", err)
                for pid in pids:
                    self.assertTrue(wait_gone(pid))
                self.assert_clean()

    def test_rank_ignoring_sigterm_is_killed_after_the_grace_period(self):
        proc = self.start("--set", "stop_grace_ms=200", "-n", "2", "sh", "-c",
                          "trap '' TERM; echo ready; while :; do sleep 1; done")
        self.read_lines_until(proc, 2, r"^ready$")
        proc.send_signal(signal.SIGTERM)
        status, _, err = self.finish(proc, timeout=30)
        self.assertEqual(status, 128 + signal.SIGTERM)
        self.assert_clean()

    def test_mpfrun_killed_with_sigkill_takes_its_ranks_and_cleanup_removes_the_rest(self):
        proc, pids = self.start_waiting_job()
        entries = os.listdir(self.run_dir())
        self.assertEqual(entries, [f"{proc.pid}.json"])
        proc.kill()
        proc.wait()
        for pid in pids:
            self.assertTrue(wait_gone(pid), f"rank pid {pid} survived its mpfrun")
        # The dead job's registration and PMIx directory are still there ...
        self.assertEqual(os.listdir(self.run_dir()), [f"{proc.pid}.json"])
        self.assertTrue(any(d.startswith("mpf-pmix-") for d in os.listdir(self.tmpdir)))
        # ... until `mpfrun --cleanup` removes them.
        status, out, _ = self.mpfrun("--cleanup")
        self.assertEqual(status, 0)
        self.assertIn(f"removed job {proc.pid}", out)
        self.assert_clean()

    def test_next_mpfrun_cleans_dead_jobs(self):
        proc, pids = self.start_waiting_job(nranks=1)
        proc.kill()
        proc.wait()
        self.assertTrue(wait_gone(pids[0]))
        status, _, err = self.mpfrun("-v", "-n", "1", "true")
        self.assertEqual(status, 0)
        self.assertIn(f"removed what dead job {proc.pid}", err)
        self.assert_clean()


if __name__ == "__main__":
    unittest.main()
