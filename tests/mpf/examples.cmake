# The MPF example programs (share/examples/mpf_*.c, the programs of seed 003
# section 4) as jobs: each checks its own results and prints
# "<program> ok: ..." on rank 0. Arguments are kept small so that every job,
# 64 processes on 2 CPUs included, takes a few seconds at most.

# base: one process loops messages through a conversation to itself; with
# more processes the others only join and leave.
mpf_add_job_test(NAME mpf.example.base.np1 NP 1 PROGRAM example_mpf_base ARGS --volume 4194304
  EXPECT_OUTPUT "^mpf_base ok" TIMEOUT 60)
mpf_add_job_test(NAME mpf.example.base.np3 NP 3 PROGRAM example_mpf_base ARGS --min 1 --max 65536 --volume 1048576
  EXPECT_OUTPUT "^mpf_base ok" TIMEOUT 60)

# fcfs: every message to exactly one of N-1 FCFS receivers.
foreach(np 1 4 64)
  mpf_add_job_test(NAME mpf.example.fcfs.np${np} NP ${np} PROGRAM example_mpf_fcfs ARGS --messages 5000 --size 256
    EXPECT_OUTPUT "^mpf_fcfs ok" TIMEOUT 60)
endforeach()
# Messages larger than the queue (64 KiB here) are read from the sender's
# buffer, one FCFS receiver each.
mpf_add_job_test(NAME mpf.example.fcfs.large NP 4 PROGRAM example_mpf_fcfs ARGS --messages 50 --size 100000
  MPFRUN_ARGS --set=mpf_queue_bytes=64KiB EXPECT_OUTPUT "^mpf_fcfs ok" TIMEOUT 60)

# broadcast: every message to every one of N-1 BROADCAST receivers, in order.
foreach(np 1 4 16)
  mpf_add_job_test(NAME mpf.example.broadcast.np${np} NP ${np} PROGRAM example_mpf_broadcast
    ARGS --messages 2000 --size 512 EXPECT_OUTPUT "^mpf_broadcast ok" TIMEOUT 60)
endforeach()
# A small queue: the sender keeps waiting for the slowest receiver.
mpf_add_job_test(NAME mpf.example.broadcast.small_queue NP 8 PROGRAM example_mpf_broadcast
  ARGS --messages 2000 --size 512 MPFRUN_ARGS --set=mpf_queue_bytes=8KiB
  EXPECT_OUTPUT "^mpf_broadcast ok" TIMEOUT 60)

# random: every process sends to random others and drains its inbox.
foreach(np 1 4 64)
  mpf_add_job_test(NAME mpf.example.random.np${np} NP ${np} PROGRAM example_mpf_random ARGS --messages 1000
    EXPECT_OUTPUT "^mpf_random ok" TIMEOUT 60)
endforeach()

# gauss_jordan: parallel and sequential solutions must agree.
mpf_add_job_test(NAME mpf.example.gauss_jordan.np1 NP 1 PROGRAM example_mpf_gauss_jordan ARGS 128
  EXPECT_OUTPUT "^mpf_gauss_jordan ok" TIMEOUT 60)
mpf_add_job_test(NAME mpf.example.gauss_jordan.np4 NP 4 PROGRAM example_mpf_gauss_jordan ARGS 256
  EXPECT_OUTPUT "^mpf_gauss_jordan ok" TIMEOUT 60)
# More processes than rows: the last ones have none.
mpf_add_job_test(NAME mpf.example.gauss_jordan.np16_few_rows NP 16 PROGRAM example_mpf_gauss_jordan ARGS 10
  EXPECT_OUTPUT "^mpf_gauss_jordan ok" TIMEOUT 60)
mpf_add_job_test(NAME mpf.example.gauss_jordan.np64 NP 64 PROGRAM example_mpf_gauss_jordan ARGS 256
  EXPECT_OUTPUT "^mpf_gauss_jordan ok" TIMEOUT 60)

# sor: parallel and sequential red-black SOR must agree, in as many
# iterations.
mpf_add_job_test(NAME mpf.example.sor.np1 NP 1 PROGRAM example_mpf_sor ARGS 64
  EXPECT_OUTPUT "^mpf_sor ok" TIMEOUT 60)
mpf_add_job_test(NAME mpf.example.sor.np4 NP 4 PROGRAM example_mpf_sor ARGS 64
  EXPECT_OUTPUT "^mpf_sor ok" TIMEOUT 60)
# More processes than rows: the last ones only report to the monitor.
mpf_add_job_test(NAME mpf.example.sor.np16_few_rows NP 16 PROGRAM example_mpf_sor ARGS 8
  EXPECT_OUTPUT "^mpf_sor ok" TIMEOUT 60)
mpf_add_job_test(NAME mpf.example.sor.np64 NP 64 PROGRAM example_mpf_sor ARGS 128
  EXPECT_OUTPUT "^mpf_sor ok" TIMEOUT 60)
