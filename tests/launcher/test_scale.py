"""Jobs far larger than the node's CPUs (SPEC §2: memory scales with the node,
not with the square of the job): they start, fit their bound, and a job
that cannot fit is refused at once."""
import json
import os
import re
import unittest

import jsonschema

from mpfrun_testing import JobTestCase, program

HELLO = program("example_hello")


class Scale(JobTestCase):
    def test_a_job_of_1024_ranks_runs_in_little_shared_memory(self):
        path = os.path.join(self.tmpdir, "report.json")
        status, out, err = self.mpfrun("--timeout", "300", "--report", path, "-n", "1024", HELLO)
        self.assertEqual(status, 0, err[-2000:])
        self.assertEqual(len(re.findall(r"^Hello from rank \d+ of 1024", out, re.M)), 1024)
        with open(path) as f:
            report = json.load(f)
        jsonschema.validate(report, self.load_schema("mpfrun-report.schema.json"))
        job = report["job"]
        # Every pair could talk (the mapping has room for it), but only the
        # pages of pairs that did are in memory: the ring pass and the
        # collectives of MPI_Init and MPI_Finalize.
        self.assertGreater(job["segment_bytes"], 1 << 30)
        self.assertLess(job["segment_resident_bytes"], 256 << 20)
        os.unlink(path)
        self.assert_clean()

    def test_a_job_that_cannot_fit_is_refused_in_one_line(self):
        status, out, err = self.mpfrun("-n", "100000", "true")
        self.assertEqual(status, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertRegex(err, r"^mpfrun: a job of 100000 ranks on this node needs up to [\d.]+ TiB of shared memory")
        self.assertIn("is available", err)
        self.assertIn("--set ring_slots=4", err)
        self.assert_clean()


if __name__ == "__main__":
    unittest.main()
