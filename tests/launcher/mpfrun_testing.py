"""Shared helpers of the launcher's end-to-end tests (tests/launcher/test_*.py).

CTest passes the paths through the environment:
  MPFRUN          the mpfrun binary under test
  MPF_PROGRAMS    directory of the test programs (tests/programs)
  MPF_SCHEMAS     directory of the JSON schemas (share/schemas)

Every job runs with a private TMPDIR, so the run directory and the PMIx
directory of each test are its own, and `assert_clean` can check that the job
left nothing behind there or in /dev/shm. Every job has a timeout.
"""
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
import unittest

MPFRUN = os.environ["MPFRUN"]
PROGRAMS = os.environ["MPF_PROGRAMS"]
SCHEMAS = os.environ["MPF_SCHEMAS"]
JOB_TIMEOUT = 60


def program(name):
    return os.path.join(PROGRAMS, name)


class JobTestCase(unittest.TestCase):
    def setUp(self):
        self.tmpdir = tempfile.mkdtemp(prefix="mpf-launcher-test-")
        self.env = dict(os.environ, TMPDIR=self.tmpdir)
        for name in list(self.env):
            if name.startswith("MPF_"):
                del self.env[name]  # tunables of the caller must not leak into the test
        # Nor the machine's tuning file, once mpftune has written one: the tests
        # check the defaults (cmake/MpfTesting.cmake, MPF_TEST_ENVIRONMENT).
        self.env["MPF_TUNING_FILE"] = ""
        self.shm_before = set(os.listdir("/dev/shm"))

    def tearDown(self):
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def mpfrun(self, *args, stdin=subprocess.DEVNULL, input=None, env=None, timeout=JOB_TIMEOUT):
        """Runs mpfrun to completion; returns (status, stdout, stderr)."""
        if input is not None:
            stdin = None  # subprocess.run makes the pipe for `input`
        result = subprocess.run([MPFRUN, *args], stdin=stdin, input=input, capture_output=True,
                                env=env or self.env, timeout=timeout, text=True)
        return result.returncode, result.stdout, result.stderr

    def start(self, *args, env=None):
        """Starts mpfrun in the background with pipes for stdout and stderr."""
        return subprocess.Popen([MPFRUN, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env or self.env, text=True)

    def read_lines_until(self, proc, count, pattern, timeout=JOB_TIMEOUT):
        """Reads proc's stdout until `count` lines match `pattern`; returns the matches.

        Reads the descriptor itself (not the buffered file object) so that
        select() never waits for data that is already in a buffer.
        """
        matches, pending, fd = [], b"", proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while len(matches) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                proc.kill()
                self.fail(f"timed out waiting for {count} lines matching {pattern!r}; got {matches}")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self.fail(f"mpfrun's output ended before {count} lines matched {pattern!r}")
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                m = re.search(pattern, line.decode())
                if m:
                    matches.append(m)
        return matches

    def finish(self, proc, timeout=JOB_TIMEOUT):
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err

    def run_dir(self):
        return os.path.join(self.tmpdir, f"mpf-{os.getuid()}")

    def assert_clean(self):
        """Nothing of any job is left in /dev/shm or in the private TMPDIR."""
        new_shm = sorted(set(os.listdir("/dev/shm")) - self.shm_before)
        self.assertEqual([n for n in new_shm if n.startswith("mpf") or "pmix" in n], [],
                         "left in /dev/shm")
        left = []
        for root, dirs, files in os.walk(self.tmpdir):
            left += [os.path.join(root, f) for f in files]
            left += [os.path.join(root, d) for d in dirs if d != f"mpf-{os.getuid()}"]
        self.assertEqual(left, [], "left in TMPDIR")

    def load_schema(self, name):
        with open(os.path.join(SCHEMAS, name)) as f:
            return json.load(f)


def wait_gone(pid, timeout=10):
    """Waits until process `pid` (not necessarily our child) has ended."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        return bool(ready)
    finally:
        os.close(fd)
