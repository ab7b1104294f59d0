"""Node memory created while the job runs (shm::NodeMemory): every rank maps
it, and nothing of it is left once the job is gone, however it ends."""
import glob
import json
import os
import signal
import subprocess
import unittest

from mpfrun_testing import JobTestCase, program, wait_gone

MPFINSPECT = os.environ["MPFINSPECT"]

NODE_MEMORY = program("node_memory")


def mappers(name):
    """Pids of the processes that map the memfd of node memory `name`."""
    pids = []
    for maps in glob.glob("/proc/[0-9]*/maps"):
        try:
            with open(maps) as f:
                if f"memfd:mpf-node-{name} " in f.read():
                    pids.append(int(maps.split("/")[2]))
        except OSError:
            pass  # the process ended while we looked
    return pids


class NodeMemory(JobTestCase):
    def name(self):
        return f"t{os.getpid()}-{self._testMethodName[-12:]}"

    def test_every_rank_maps_what_one_created(self):
        status, out, err = self.mpfrun("--timeout", "60", "-n", "4", NODE_MEMORY, self.name(), "finish")
        self.assertEqual(status, 0, err)
        self.assertIn("node memory ok", out)
        self.assertEqual(mappers(self.name()), [])
        self.assert_clean()

    def test_nothing_is_left_after_its_creator_crashes(self):
        status, _, err = self.mpfrun("--timeout", "60", "-n", "3", NODE_MEMORY, self.name(), "crash")
        self.assertEqual(status, 128 + signal.SIGSEGV, err)
        self.assertEqual(mappers(self.name()), [])
        self.assert_clean()

    def test_nothing_is_left_after_mpfrun_is_killed(self):
        name = self.name()
        proc = self.start("-n", "3", NODE_MEMORY, name, "hang")
        pids = [int(m.group(1)) for m in self.read_lines_until(proc, 3, r"^mapped (\d+)$")]
        self.assertEqual(sorted(mappers(name)), sorted(pids))
        # mpfinspect lists it, with its owner and size.
        inspected = subprocess.run([MPFINSPECT, "--json", str(proc.pid)], capture_output=True, text=True,
                                   env=self.env, timeout=60)
        self.assertEqual(inspected.returncode, 0, inspected.stderr)
        pieces = json.loads(inspected.stdout)["job"]["node_memory"]
        self.assertEqual([(p["name"], p["owner_rank"], p["bytes"]) for p in pieces], [(name, 0, 1 << 20)])
        text = subprocess.run([MPFINSPECT, str(proc.pid)], capture_output=True, text=True, env=self.env, timeout=60)
        self.assertIn(f"; {name} of rank 0, 1.0 MiB", text.stdout)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for pid in pids:
            self.assertTrue(wait_gone(pid), f"rank pid {pid} survived its mpfrun")
        self.assertEqual(mappers(name), [])
        self.mpfrun("--cleanup")
        self.assert_clean()


if __name__ == "__main__":
    unittest.main()
