"""How mpfrun ends a job that fails, and that nothing is left behind (SPEC §6, §10)."""
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import unittest

from mpfrun_testing import JOB_TIMEOUT, MPFRUN, JobTestCase, program, wait_gone

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
            self.assertRegex(err, rf"mpfrun:   rank {rank} \(pid \d+\): running after initialisation")

    def test_rank_killed_with_sigkill(self):
        proc = self.start("-n", "3", ACTIONS, "wait-signal")
        ready = self.read_lines_until(proc, 3, r"^ready (\d+) (\d+)$")
        victim = next(m for m in ready if m.group(1) == "1")
        os.kill(int(victim.group(2)), signal.SIGKILL)
        status, _, err = self.finish(proc)
        self.assertEqual(status, 128 + 9)
        self.assertRegex(err, RANK_LINE.format(rank=1) + r"killed by signal 9 \(Killed\); stopping 2 other ranks")
        self.assert_clean()


class OutputOfStoppedRanks(JobTestCase):
    """Issue 29: everything a rank wrote before mpfrun stopped it reaches the user, and
    forwarding output never keeps mpfrun from stopping the job or from ending.

    In write-until-stopped the stopped ranks are still writing when the stop begins; each
    records the last line it has written whole to both streams, and every line up to that
    one must be forwarded, once, in order. Races decide how much is in flight, hence the
    repeated runs.
    """
    NRANKS = 8
    FAILING = 1

    def write_until_stopped(self, records, tagged=False):
        return [*(["--tag-output"] if tagged else []), "-n", str(self.NRANKS), ACTIONS, "write-until-stopped",
                str(self.FAILING), "3", records]

    def scratch(self):
        """A directory of the test's own, outside the job's TMPDIR that assert_clean checks."""
        path = tempfile.mkdtemp(prefix="mpf-launcher-scratch-")
        self.addCleanup(shutil.rmtree, path, ignore_errors=True)
        return path

    def check_every_line(self, records, status, out, err, tagged=False):
        self.assertEqual(status, 3, err[-2000:])
        prefix = r"\[\d\] " if tagged else ""
        for rank in range(self.NRANKS):
            if rank == self.FAILING:
                continue
            with open(os.path.join(records, f"rank.{rank}"), "rb") as f:
                last = struct.unpack("=i", f.read())[0]
            self.assertGreaterEqual(last, 99)  # it got past the barrier
            for stream, text in (("stdout", out), ("stderr", err)):
                got = [int(n) for n in re.findall(rf"^{prefix}rank {rank} {stream} line +(\d+) 0{{73}}$", text,
                                                  re.MULTILINE)]
                # The line after the last recorded one may have been written too, but
                # no line is cut short: each is one write of less than PIPE_BUF.
                self.assertIn(len(got), (last + 1, last + 2),
                              f"rank {rank} wrote lines 0-{last} to {stream}; {len(got)} arrived")
                self.assertEqual(got, list(range(len(got))), f"rank {rank}'s {stream}")
        self.assertRegex(err, rf"(?m)^{prefix}rank {self.FAILING} exits$")
        self.assertRegex(err, RANK_LINE.format(rank=self.FAILING) +
                         f"exited with code 3; stopping {self.NRANKS - 1} other ranks")

    def run_with_slow_stdout(self, args, blocking):
        """Runs mpfrun with its stdout on a pipe read more slowly than the ranks write.

        Non-blocking, the pipe is like one shared with a process that set O_NONBLOCK on
        it: mpfrun's writes can fail with EAGAIN. Returns (status, stdout, stderr).
        """
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, blocking)
        proc = subprocess.Popen([MPFRUN, *args], stdin=subprocess.DEVNULL, stdout=write_end,
                                stderr=subprocess.PIPE, env=self.env)
        os.close(write_end)
        out_fd, err_fd = read_end, proc.stderr.fileno()
        chunks = {out_fd: [], err_fd: []}
        open_fds = [out_fd, err_fd]
        deadline = time.monotonic() + JOB_TIMEOUT
        try:
            while open_fds:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.fail("mpfrun did not end: kept forwarding one rank's output?")
                ready, _, _ = select.select(open_fds, [], [], remaining)
                for fd in ready:
                    chunk = os.read(fd, 4096)
                    if chunk:
                        chunks[fd].append(chunk)
                    else:
                        open_fds.remove(fd)
                if out_fd in ready:
                    time.sleep(0.001)  # this is what makes the reader slow: 4 KiB a millisecond at most
        finally:
            if open_fds:
                proc.kill()
            proc.wait()
            proc.stderr.close()
            os.close(read_end)
        return proc.returncode, b"".join(chunks[out_fd]).decode(), b"".join(chunks[err_fd]).decode()

    def test_every_line_written_before_the_stop_arrives(self):
        for run in range(30):
            tagged = run % 2 == 1
            with self.subTest(run=run, tag_output=tagged):
                records = self.scratch()
                status, out, err = self.mpfrun(*self.write_until_stopped(records, tagged))
                self.check_every_line(records, status, out, err, tagged)
        self.assert_clean()

    def test_every_line_reaches_a_reader_slower_than_the_ranks(self):
        # Whether mpfrun's stdout blocks or, made non-blocking by another process sharing
        # it, refuses with EAGAIN, mpfrun must wait for room rather than drop lines.
        for blocking in (True, False):
            for run in range(3):
                with self.subTest(blocking=blocking, run=run):
                    records = self.scratch()
                    status, out, err = self.run_with_slow_stdout(self.write_until_stopped(records), blocking)
                    self.check_every_line(records, status, out, err)
        self.assert_clean()

    def test_a_rank_writing_without_pause_does_not_hide_a_failure(self):
        # Rank 0 writes as fast as `yes` does, faster than mpfrun can forward; rank 1
        # exits with 3 once rank 0's output flows. mpfrun must see that and stop the job.
        fifo = os.path.join(self.scratch(), "go")
        os.mkfifo(fifo)
        proc = self.start("-n", "2", "sh", "-c", f'if [ "$PMIX_RANK" = 1 ]; then read go < {fifo}; exit 3; fi; exec yes')
        self.read_lines_until(proc, 1, r"^y$")
        with open(fifo, "w") as f:
            f.write("go\n")
        try:
            status, _, err = self.finish(proc)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self.fail("mpfrun kept forwarding rank 0's output and never stopped the job")
        self.assertEqual(status, 3, err)
        self.assertRegex(err, RANK_LINE.format(rank=1) + "exited with code 3; stopping 1 other rank")
        self.assert_clean()

    def test_a_process_left_behind_writing_without_pause_does_not_hold_mpfrun(self):
        # The rank exits 0 and leaves `yes` writing to its stdout: mpfrun listens for
        # about a second more, then ends; `yes` then dies of SIGPIPE.
        result = subprocess.run([MPFRUN, "-n", "1", "sh", "-c", 'yes & echo "left behind $!" >&2'],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=self.env, timeout=JOB_TIMEOUT, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        left_behind = re.search(r"^left behind (\d+)$", result.stderr, re.MULTILINE)
        self.assertIsNotNone(left_behind, result.stderr)
        self.assertTrue(wait_gone(int(left_behind.group(1))))
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
