"""mpfinspect on running jobs, and the view mpfrun --timeout prints (SPEC §7)."""
import json
import os
import re
import subprocess
import time
import unittest

import jsonschema

from mpfrun_testing import MPFRUN, JobTestCase, program

MPFINSPECT = os.environ["MPFINSPECT"]
ACTIONS = program("job_actions")
MPF_ACTIONS = program("mpf_actions")
SHMEM_ACTIONS = program("shmem_actions")


class Inspect(JobTestCase):
    def inspect(self, *args):
        result = subprocess.run([MPFINSPECT, *args], capture_output=True, text=True, env=self.env, timeout=60)
        return result.returncode, result.stdout, result.stderr

    def wait_for_stuck_job(self, proc):
        """Polls mpfinspect until rank 1 shows as blocked in MPI_Recv(0, 7) with its queues."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, out, _ = self.inspect("--json", str(proc.pid))
            if status == 0:
                state = json.loads(out)
                rank1 = state["ranks"][1]
                blocked = rank1["blocked_in"]
                if blocked and blocked["function"] == "MPI_Recv" and rank1["queues"]["unexpected_total"] == 1:
                    return state
            # The job needs a moment to start and block; the inspector is a
            # separate process that can only look again.
            time.sleep(0.05)
        proc.kill()
        self.fail("rank 1 never showed as blocked in MPI_Recv with one unexpected message")

    def test_no_jobs(self):
        status, out, _ = self.inspect()
        self.assertEqual(status, 0)
        self.assertEqual(out, "no running jobs\n")

    def test_version(self):
        status, out, _ = self.inspect("--version")
        self.assertEqual(status, 0)
        self.assertRegex(out, r"^mpfinspect \(MPF Toolkit\) \d+\.\d+\.\d+$")

    def test_a_stuck_job_shows_what_each_rank_waits_for(self):
        proc = self.start("--timeout", "60", "-n", "3", ACTIONS, "stuck-recv")
        state = self.wait_for_stuck_job(proc)
        self.assertEqual(state["job"]["jobid"], str(proc.pid))
        self.assertEqual(state["job"]["ranks"], 3)
        rank1 = state["ranks"][1]
        self.assertEqual(rank1["blocked_in"]["peer"], 0)
        self.assertEqual(rank1["blocked_in"]["tag"], 7)
        self.assertEqual(rank1["queues"]["posted"][0]["tag"], 7)
        self.assertEqual(rank1["queues"]["unexpected"][0]["tag"], 3)
        self.assertEqual(rank1["queues"]["unexpected"][0]["source"], 0)
        self.assertEqual(rank1["queues"]["unexpected"][0]["protocol"], "short")
        self.assertEqual(state["ranks"][0]["counters"]["short_sent"], 1)
        jsonschema.validate(state, self.load_schema("mpfinspect-job.schema.json"))
        job = state["job"]
        self.assertEqual([r["name"] for r in job["segment_regions"]][:2], ["ranks", "job.tunables"])
        self.assertLess(job["segment_resident_bytes"], job["segment_bytes"])
        self.assertEqual(job["node_memory"], [])

        status, out, _ = self.inspect()
        self.assertEqual(status, 0)
        self.assertIn(f"job {proc.pid}: 3 ranks", out)
        status, out, _ = self.inspect(str(proc.pid))
        self.assertEqual(status, 0)
        self.assertRegex(out, r"rank 1 \(pid \d+\): blocked in MPI_Recv\(peer 0, tag 7, context 0\) for ")
        self.assertRegex(out, r"shared memory: [\d.]+ MiB in use of the segment's [\d.]+ MiB\n")
        self.assertIn("source 0, tag 3, context 0, 4 bytes, short", out)
        status, out, _ = self.inspect(str(proc.pid), "--rank", "1")
        self.assertEqual(status, 0)
        self.assertNotIn("rank 0 (pid", out)
        self.assertIn("tunables:", out)
        self.assertIn("transport: shared memory; large messages: one copy with Cross Memory Attach (rndv_mode=split)", out)
        self.assertIn("eager_limit", out)

        status, _, err = self.inspect(str(proc.pid), "--rank", "9")
        self.assertEqual(status, 2)
        self.assertIn("job %d has ranks 0..2" % proc.pid, err)
        status, _, err = self.inspect("424242424")
        self.assertEqual(status, 2)
        self.assertIn("no job 424242424", err)

        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    def test_rank_view_says_which_tuning_file_a_value_came_from(self):
        tuning = os.path.join(self.tmpdir, "tuned.json")
        with open(tuning, "w") as f:
            json.dump({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 1500},
                       "machine": {"cpu_model": "Another CPU", "cpus": 4096, "memory_bytes": 1 << 50}}, f)
        proc = self.start("--timeout", "60", "--tuning", tuning, "-n", "3", ACTIONS, "stuck-recv")
        self.wait_for_stuck_job(proc)
        # mpfinspect reads the same file and says nothing of its machine: mpfrun did.
        env = dict(self.env, MPF_TUNING_FILE=tuning)
        result = subprocess.run([MPFINSPECT, str(proc.pid), "--rank", "1"], capture_output=True, text=True, env=env,
                                timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"  stop_grace_ms = 1500 (tuning file {tuning})\n", result.stdout)
        self.assertEqual(result.stderr, "")
        proc.terminate()
        _, _, err = self.finish(proc)
        self.assertEqual(err.count("warning"), 1, err)
        self.assertIn(f"mpfrun: warning: tuning file {tuning} was measured on another machine", err)
        os.unlink(tuning)
        self.assert_clean()

    def test_deadlock_of_a_stuck_job_is_not_declared_while_a_rank_computes(self):
        proc = self.start("--timeout", "60", "-n", "3", ACTIONS, "stuck-recv")
        self.wait_for_stuck_job(proc)
        status, out, _ = self.inspect("--deadlock", str(proc.pid))
        self.assertEqual(status, 0, out)
        self.assertIn("not deadlocked:", out)
        self.assertIn("ranks 0,2 are computing; rank 1 waits for rank 0 in MPI_Recv(source 0, tag 7)", out)
        status, out, _ = self.inspect("--deadlock", "--json", str(proc.pid))
        self.assertEqual(json.loads(out)["deadlocked"], False)
        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    def test_receive_cycle_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "recv-cycle")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 0 waits in MPI_Recv(source 1, tag 7) while rank 1 waits in MPI_Recv(source 0, tag 9)",
                      err)
        self.assert_clean()

    def test_a_job_on_virtual_nodes_is_shown_whole(self):
        # Two ranks on each of two virtual nodes: every node's segment is read,
        # ranks are numbered as the job numbers them and name their node.
        proc = self.start("--timeout", "60", "--virtual-nodes", "2", "-n", "4", ACTIONS, "stuck-recv")
        state = self.wait_for_stuck_job(proc)
        jsonschema.validate(state, self.load_schema("mpfinspect-job.schema.json"))
        self.assertEqual([r["rank"] for r in state["ranks"]], [0, 1, 2, 3])
        self.assertEqual([n["ranks"] for n in state["job"]["nodes"]], [[0, 1], [2, 3]])
        self.assertEqual([r["node"] for r in state["ranks"]], [state["job"]["nodes"][0]["name"]] * 2 +
                         [state["job"]["nodes"][1]["name"]] * 2)
        status, out, _ = self.inspect(str(proc.pid))
        self.assertEqual(status, 0)
        self.assertRegex(out, r"job \d+: 4 ranks on 2 nodes \(\S+/node0: ranks 0-1, .*; \S+/node1: ranks 2-3, ")
        proc.terminate()
        proc.communicate(timeout=60)

    def test_a_receive_cycle_across_nodes_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "--virtual-nodes", "2", "-n", "2", ACTIONS, "recv-cycle")
        self.assertEqual(status, 124)
        self.assertIn("2 ranks on 2 nodes", err)
        self.assertIn("rank 0 waits in MPI_Recv(source 1, tag 7) while rank 1 waits in MPI_Recv(source 0, tag 9)",
                      err)
        self.assert_clean()

    def test_tag_mismatch_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "tag-mismatch")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 1 waits for tag 2 from rank 0, but rank 0's message has tag 1 and sits unexpected", err)
        self.assert_clean()

    def test_rendezvous_send_cycle_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "send-cycle")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 0 waits in MPI_Send(destination 1, tag 0) while rank 1 waits in "
                      "MPI_Send(destination 0, tag 0)", err)

    def test_any_source_wait_is_explained(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "3", ACTIONS, "any-source")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 0 waits in MPI_Recv(source any, tag 0) for a message from any rank", err)

    def test_missing_send_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "missing-send")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 0 waits in MPI_Recv(source 1, tag 4) but rank 1 is in MPI_Finalize: "
                      "that message was never sent", err)

    def test_watch_follows_the_job_until_it_ends(self):
        proc = self.start("--timeout", "60", "-n", "3", ACTIONS, "stuck-recv")
        self.wait_for_stuck_job(proc)
        watch = subprocess.Popen([MPFINSPECT, "--watch", "0.2", str(proc.pid)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=self.env, text=True)
        self.read_lines_until(watch, 2, r"blocked in MPI_Recv\(peer 0, tag 7")  # at least two refreshes
        proc.terminate()
        self.finish(proc)
        out, _ = watch.communicate(timeout=60)
        self.assertEqual(watch.returncode, 0)
        self.assertIn(f"job {proc.pid} has ended", out)

    def test_cleanup_removes_dead_jobs(self):
        proc = self.start("--timeout", "60", "-n", "1", ACTIONS, "hang")
        self.wait_for_registration(proc)
        proc.kill()
        proc.wait()
        status, out, _ = self.inspect()
        self.assertIn("(dead: mpfrun --cleanup removes it)", out)
        status, out, _ = self.inspect("--cleanup")
        self.assertEqual(status, 0)
        self.assertIn(f"removed job {proc.pid}", out)
        status, out, _ = self.inspect()
        self.assertEqual(out, "no running jobs\n")

    def wait_for_registration(self, proc):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, out, _ = self.inspect("--json")
            if status == 0 and any(j["jobid"] == str(proc.pid) and j["ranks"] > 0 for j in json.loads(out)):
                return
            time.sleep(0.05)  # the job registers its ranks once they have started
        self.fail("the job never registered its ranks")

    def test_watching_a_64_rank_job_does_not_disturb_it(self):
        token_ring = os.path.join(os.environ["MPF_MPI_PROGRAMS"], "token_ring")
        proc = subprocess.Popen([MPFRUN, "--timeout", "120", "-n", "64", token_ring, "300"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env, text=True)
        self.wait_for_registration(proc)
        watch = subprocess.Popen([MPFINSPECT, "--watch", "0.05", "--json", str(proc.pid)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=self.env, text=True)
        out, err = proc.communicate(timeout=150)
        watched, _ = watch.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        self.assertRegex(out, r"token_ring ok")
        views = [json.loads(line) for line in watched.splitlines() if line.startswith("{")]
        self.assertGreater(len(views), 0, "the job was never seen")
        self.assertEqual(views[0]["job"]["ranks"], 64)
        self.assert_clean()

    def test_ranks_in_different_collectives_are_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "4", ACTIONS, "coll-mismatch")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 0 is in MPI_Bcast(root 1) on MPI_COMM_WORLD while ranks 1-3 are in MPI_Barrier on "
                      "MPI_COMM_WORLD", err)
        self.assert_clean()

    def test_collective_mismatch_in_json(self):
        proc = self.start("--timeout", "60", "-n", "4", ACTIONS, "coll-mismatch")
        deadline = time.monotonic() + 60
        verdict = None
        while time.monotonic() < deadline:
            status, out, _ = self.inspect("--deadlock", "--json", str(proc.pid))
            if status == 3:
                verdict = json.loads(out)
                break
            time.sleep(0.05)
        self.assertIsNotNone(verdict, "the job never showed as deadlocked")
        self.assertTrue(verdict["deadlocked"])
        self.assertIn("rank 0 is in MPI_Bcast(root 1) on MPI_COMM_WORLD while ranks 1-3 are in MPI_Barrier on "
                      "MPI_COMM_WORLD", verdict["explanation"])
        # Rank 0 waits for the ranks outside its call, and they for rank 0.
        self.assertEqual(verdict["waits_for"]["0"], [1, 2, 3])
        self.assertEqual(verdict["waits_for"]["1"], [0])
        status, out, _ = self.inspect("--json", str(proc.pid))
        rank0 = json.loads(out)["ranks"][0]["blocked_in"]
        self.assertEqual((rank0["function"], rank0["root"], rank0["context"]), ("MPI_Bcast", 1, 0))
        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    def test_same_collective_on_another_communicator_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "4", ACTIONS, "coll-comm-mismatch")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertRegex(err, r"rank 0 is in MPI_Barrier on the communicator with context \d+ while ranks 1-3 are "
                              r"in MPI_Barrier on MPI_COMM_WORLD")
        self.assert_clean()

    def test_ranks_waiting_in_a_collective_for_a_computing_rank_are_not_deadlocked(self):
        status, _, err = self.mpfrun("--timeout", "3", "-n", "4", ACTIONS, "coll-computing", "30")
        self.assertEqual(status, 124)
        self.assertIn("not deadlocked:", err)
        self.assertIn("rank 0 is computing; ranks 1-3 wait for it in MPI_Bcast(root 0) on MPI_COMM_WORLD", err)
        self.assert_clean()

    def wait_for_deadlock(self, proc):
        """Polls mpfinspect --deadlock --json until the job shows as deadlocked; returns the verdict."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, out, _ = self.inspect("--deadlock", "--json", str(proc.pid))
            if status == 3:
                return json.loads(out)
            time.sleep(0.05)  # the ranks need a moment to block and publish their waits
        proc.kill()
        self.fail("the job never showed as deadlocked")

    def test_sub_communicator_collective_waits_only_for_its_members(self):
        proc = self.start("--timeout", "60", "-n", "4", ACTIONS, "coll-subcomm")
        verdict = self.wait_for_deadlock(proc)
        # Ranks 0 and 1 wait in the barrier of ranks 0-2 for rank 2 alone.
        self.assertEqual(verdict["waits_for"]["0"], [2])
        self.assertEqual(verdict["waits_for"]["1"], [2])
        self.assertEqual(verdict["waits_for"]["2"], [3])
        self.assertTrue(any(re.fullmatch(r"ranks 0-1 wait in MPI_Barrier, collective #1 on the communicator with "
                                         r"context \d+ \(ranks 0-2\), for rank 2, which has not entered it", line)
                            for line in verdict["explanation"]), verdict["explanation"])
        group = verdict["collectives"][0]
        self.assertEqual((group["members"], group["ranks"], group["not_entered"]), ([0, 1, 2], [0, 1], [2]))
        self.assertEqual((group["operation"], group["seq"], group["function"]), ("barrier", 1, "MPI_Barrier"))
        status, out, _ = self.inspect("--json", str(proc.pid))
        state = json.loads(out)
        jsonschema.validate(state, self.load_schema("mpfinspect-job.schema.json"))
        rank0 = state["ranks"][0]["blocked_in"]
        self.assertEqual((rank0["api"], rank0["kind"], rank0["collective"]),
                         ("mpi", "collective", {"operation": "barrier", "seq": 1}))
        rank2 = state["ranks"][2]["blocked_in"]
        self.assertEqual((rank2["kind"], rank2["peer"], rank2["tag"]), ("receive", 3, 1))
        sub = [c for c in state["ranks"][2]["communicators"] if c["context"] == rank0["context"]]
        self.assertEqual((sub[0]["size"], sub[0]["rank"], sub[0]["started"]), (3, 2, 0))
        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    def test_collective_completed_as_another_operation_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "4", ACTIONS, "coll-completed")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("ranks 1-3 are in MPI_Barrier on MPI_COMM_WORLD while rank 0 waits in MPI_Finalize", err)
        self.assertIn("rank 0 completed collective #2 on MPI_COMM_WORLD as MPI_Bcast, which ranks 1-3 entered as "
                      "MPI_Barrier", err)
        self.assert_clean()

    # One-sided communication: the waits of RMA synchronization name what
    # they wait for, and a lock request waits for the lock's holders.
    def test_rma_wait_for_a_complete_that_never_comes_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "rma-wait-cycle")
        self.assertEqual(status, 124)
        self.assertIn("deadlocked:", err)
        self.assertIn("rank 0 waits in MPI_Win_wait(for rank 1's MPI_Win_complete) while rank 1 waits in "
                      "MPI_Recv(source 0, tag 3)", err)
        self.assert_clean()

    def test_rma_start_waiting_for_a_post_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "rma-start-no-post")
        self.assertEqual(status, 124)
        self.assertIn("rank 1 is in MPI_Barrier on MPI_COMM_WORLD while rank 0 waits in "
                      "MPI_Win_start(for rank 1's MPI_Win_post)", err)
        self.assert_clean()

    def test_rma_lock_behind_a_blocked_holder_is_named(self):
        proc = self.start("--timeout", "60", "-n", "3", ACTIONS, "rma-lock-holder")
        verdict = self.wait_for_deadlock(proc)
        self.assertIn("rank 0 waits in MPI_Win_lock(for the lock at rank 2, held by rank 1) while rank 1 waits in "
                      "MPI_Recv(source 0, tag 5)", verdict["explanation"])
        self.assertEqual(verdict["waits_for"]["0"], [1], "a lock request waits for the holder, not the target")
        status, out, _ = self.inspect("--json", str(proc.pid))
        state = json.loads(out)
        jsonschema.validate(state, self.load_schema("mpfinspect-job.schema.json"))
        self.assertEqual(state["ranks"][0]["blocked_in"]["rma_wait"], "lock")
        [window] = state["windows"]
        self.assertEqual(window["flavor"], "allocate")
        target = window["members"][2]
        self.assertEqual([(h["rank"], h["type"]) for h in target["lock"]["holders"]], [(1, "exclusive")])
        self.assertEqual([(q["rank"], q["type"]) for q in target["lock"]["queued"]], [(0, "exclusive")])
        self.assertGreater(target["lock"]["queued"][0]["seconds"], 0)
        self.assertEqual(window["members"][1]["epochs"], ["locks"])
        status, out, _ = self.inspect(str(proc.pid))
        self.assertRegex(out, r"rank 0 \(pid \d+\): blocked in MPI_Win_lock\(for the lock at rank 2, context \d+\)")
        self.assertRegex(out, r"rank 2: 4096 bytes of node memory, reached directly; locked exclusive by rank 1 for "
                              r"[\d.]+ s; queued: rank 0 \(exclusive, [\d.]+ s\)")
        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    def test_rma_fence_beside_another_collective_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "2", ACTIONS, "rma-fence-mismatch")
        self.assertEqual(status, 124)
        self.assertRegex(err, r"rank 0 is in MPI_Win_fence on the RMA window on context \d+ while rank 1 is in "
                              r"MPI_Barrier on MPI_COMM_WORLD")
        self.assert_clean()

    # OpenSHMEM: a wait names its word (where it lies, the comparison, what
    # it holds now) or its lock and holder, and the three SHMEM hangs are
    # named: a word nobody can write, a barrier a PE never reaches, a lock
    # held by a PE that waits forever.
    def test_shmem_words_nobody_can_write_are_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "3", SHMEM_ACTIONS, "word")
        self.assertEqual(status, 124)
        self.assertRegex(err, r"rank 2 \(pid \d+\): blocked in shmem_long_wait_until\(word at offset 8 of the heap "
                              r"\(0x[0-9a-f]+\) == 7, holds 0\)")
        self.assertIn("every unfinished rank waits in SHMEM for a word of its own to change: none of them can write "
                      "the others'", err)
        self.assert_clean()

    def test_shmem_barrier_a_pe_never_reaches_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "3", SHMEM_ACTIONS, "barrier")
        self.assertEqual(status, 124)
        self.assertRegex(err, r"rank 0 \(pid \d+\): blocked in shmem_barrier_all\(SHMEM_TEAM_WORLD, collective #\d+\)")
        self.assertRegex(err, r"ranks 0,2 wait in shmem_barrier_all, collective #\d+ on SHMEM_TEAM_WORLD, for rank 1, "
                              r"which has not entered it")
        self.assertIn("rank 1 waits in shmem_long_wait_until(the word at offset 16 of the heap > 0; it holds 0), and "
                      "every other unfinished rank is blocked too: none of them can write it", err)
        self.assert_clean()

    def test_shmem_lock_held_by_a_waiting_pe_is_named(self):
        proc = self.start("--timeout", "60", "-n", "3", SHMEM_ACTIONS, "lock")
        verdict = self.wait_for_deadlock(proc)
        self.assertRegex("\n".join(verdict["explanation"]),
                         r"rank [12] waits in shmem_set_lock\(the lock at offset \d+ of the static data, held by rank "
                         r"0\): rank 0 holds it and waits in shmem_long_wait_until\(the word at offset 0 of the heap "
                         r"!= 0; it holds 0\)")
        self.assertEqual(verdict["waits_for"]["1"], [0], "a PE waiting for a lock waits for its holder")
        status, out, _ = self.inspect("--json", str(proc.pid))
        self.assertEqual(status, 0)
        state = json.loads(out)
        jsonschema.validate(state, self.load_schema("mpfinspect-job.schema.json"))
        self.assertEqual(state["shmem"]["pes"], 3)
        lock = state["ranks"][1]["blocked_in"]["shmem"]
        self.assertEqual((lock["what"], lock["area"], lock["held_by"]), ("lock", "static data", 0))
        self.assertEqual(state["ranks"][0]["shmem_locks_held"], [{"area": "static data", "offset": lock["offset"]}])
        word = state["ranks"][0]["blocked_in"]["shmem"]
        self.assertEqual((word["what"], word["comparison"], word["value"], word["current"]), ("wait_until", "!=", 0, 0))
        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    # MPF conversations: a wait names its conversation and role, the job's
    # conversations are listed, and the three MPF hangs are named.
    def test_mpf_receive_with_no_sender_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "3", MPF_ACTIONS, "no-sender")
        self.assertEqual(status, 124)
        self.assertRegex(err, r"rank 0 \(pid \d+\): blocked in mpf_receive\(conversation \"lonely\" as FCFS receiver\)")
        self.assertIn('conversation "lonely": senders none; FCFS receivers 0; BROADCAST receivers none; 0 messages', err)
        self.assertIn('rank 0 waits in mpf_receive(conversation "lonely" as FCFS receiver), but nobody has "lonely" open '
                      'to send and no message for it is queued: nothing can arrive', err)
        self.assert_clean()

    def test_every_process_in_mpf_receive_is_named(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "3", MPF_ACTIONS, "all-receive")
        self.assertEqual(status, 124)
        self.assertIn("every unfinished rank waits in mpf_receive: none of them can send", err)
        self.assertIn('rank 1 waits in mpf_receive(conversation "inbox.1" as FCFS receiver) for a message from rank 0, '
                      'which is blocked too: rank 0 in mpf_receive(conversation "inbox.0" as FCFS receiver)', err)
        self.assert_clean()

    def test_mpf_sender_on_a_full_conversation_is_named(self):
        proc = self.start("--timeout", "60", "-n", "2", "--set", "mpf_queue_bytes=4KiB", MPF_ACTIONS, "full")
        verdict = self.wait_for_deadlock(proc)
        self.assertIn('rank 0 waits in mpf_send(conversation "jam" as sender) for room: the queue of "jam" is full '
                      '(12 messages, 3840 of its 4096 bytes, mpf_queue_bytes); its receivers are rank 1, which is '
                      'blocked too: rank 1 in mpf_receive(conversation "other" as FCFS receiver)',
                      verdict["explanation"])
        self.assertEqual(verdict["waits_for"]["0"], [1], "a sender waits for its conversation's receivers")
        status, out, _ = self.inspect("--json", str(proc.pid))
        state = json.loads(out)
        jsonschema.validate(state, self.load_schema("mpfinspect-job.schema.json"))
        blocked = state["ranks"][0]["blocked_in"]
        self.assertEqual((blocked["kind"], blocked["conversation"], blocked["role"], blocked["waits_for"]),
                         ("conversation", "jam", "sender", "room"))
        jam = next(c for c in state["conversations"] if c["name"] == "jam")
        self.assertEqual((jam["senders"], jam["broadcast_receivers"], jam["fcfs_receivers"]), ([0], [1], []))
        self.assertEqual((jam["queued_messages"], jam["queued_bytes"], jam["queue_bytes"]), (12, 12 * 256, 4096))
        self.assertEqual(jam["waiting_senders"], [0])
        self.assertGreater(jam["oldest_message_seconds"], 0)
        proc.terminate()
        self.finish(proc)
        self.assert_clean()

    def test_timeout_prints_the_inspectors_view(self):
        status, _, err = self.mpfrun("--timeout", "2", "-n", "3", ACTIONS, "stuck-recv")
        self.assertEqual(status, 124)
        self.assertIn("mpfrun: the job as mpfinspect sees it:", err)
        self.assertRegex(err, r"rank 1 \(pid \d+\): blocked in MPI_Recv\(peer 0, tag 7, context 0\)")
        self.assertIn("source 0, tag 3, context 0, 4 bytes, short", err)
        self.assert_clean()


if __name__ == "__main__":
    unittest.main()
