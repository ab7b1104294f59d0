"""Node memory created while the job runs (shm::NodeMemory): every rank maps
it, and nothing of it is left once the job is gone, however it ends."""
import glob
import os
import signal
import unittest

from mpfrun_testing import JobTestCase, program, wait_gone

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
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for pid in pids:
            self.assertTrue(wait_gone(pid), f"rank pid {pid} survived its mpfrun")
        self.assertEqual(mappers(name), [])
        self.mpfrun("--cleanup")
        self.assert_clean()


if __name__ == "__main__":
    unittest.main()
