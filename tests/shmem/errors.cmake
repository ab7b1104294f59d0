# Bad input ends the job with one line naming the call, the PE and the bad
# value (or gets the standard's answer and a line saying why), and leaves
# nothing in /dev/shm (run_job.py checks). The programs are
# tests/programs/shmem_actions.c.
set(_shmem_errors
  "pe-out-of-range|1|shmem_long_p \\(PE [01]\\): PE 2 is out of range: the job has PEs 0 to 1"
  "not-symmetric|1|shmem_long_put \\(PE [01]\\): the destination at 0x[0-9a-f]+ \\(8 bytes\\) is not symmetric: it must lie in memory from shmem_malloc \\(or its kin\\) or in a global or static variable"
  "heap-exhausted|0|shmem_malloc \\(PE 0\\): a block of 1 TiB does not fit in the symmetric heap: it has 256 MiB per PE, .* set SHMEM_SYMMETRIC_SIZE \\(the tunable shmem_symmetric_size\\) to raise it"
  "invalid-team|1|shmem_team_sync \\(PE [01]\\): the team is SHMEM_TEAM_INVALID"
  "lock-not-symmetric|1|shmem_set_lock \\(PE [01]\\): the lock at 0x[0-9a-f]+ \\(8 bytes\\) is not symmetric"
  "mismatched-malloc|1|shmem_malloc \\(PE 1\\): this PE asked for 128 bytes \\(alignment 64\\) and PE 0 for 64 bytes \\(alignment 64\\): every PE must make the same symmetric allocations in the same order"
  "bad-comparison|1|shmem_long_wait_until \\(PE [01]\\): comparison 42 is not one of SHMEM_CMP_EQ"
  "destroyed-context|1|shmem_ctx_long_p \\(PE [01]\\): the context is not one shmem_ctx_create or shmem_team_create_ctx made, or it was destroyed"
  "misaligned-atomic|1|shmem_long_atomic_add \\(PE [01]\\): the object at 0x[0-9a-f]+ is not aligned to its size \\(8 bytes\\)"
  "clear-not-held|1|shmem_clear_lock \\(PE [01]\\): this PE does not hold the lock"
  "lock-twice|1|shmem_set_lock \\(PE [01]\\): this PE holds the lock already: it would wait for itself forever"
  "free-not-a-block|1|shmem_free \\(PE [01]\\): the pointer is not a block shmem_malloc \\(or its kin\\) returned, or it was freed"
  "before-init|1|shmem_my_pe \\(PE \\?\\): called before shmem_init \\(or start_pes\\)")
foreach(case IN LISTS _shmem_errors)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 action)
  list(GET parts 1 status)
  list(GET parts 2 line)
  mpf_add_job_test(NAME shmem.errors.${action} NP 2 PROGRAM shmem_actions ARGS ${action} EXPECT_EXIT ${status}
    EXPECT_OUTPUT "${line}" TIMEOUT 30)
endforeach()
