/*
 * One MPI program, many behaviours, for the launcher's tests:
 *   job_actions hello                 print "hello from rank R of N on HOST"
 *   job_actions exit RANK CODE        RANK exits with CODE after MPI_Init; others finalize
 *   job_actions crash RANK            RANK raises SIGSEGV; others wait in MPI_Finalize
 *   job_actions abort RANK CODE       RANK calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   job_actions no-finalize RANK      RANK returns from main without MPI_Finalize
 *   job_actions exit-waited RANK      RANK exits 0 after MPI_Init; the others wait for a message from it
 *   job_actions hang                  every rank blocks in pause() after MPI_Init
 *   job_actions wait-signal           print "ready R PID", wait for SIGUSR1, print "rank R got SIGUSR1"
 *   job_actions echo-stdin            rank 0 copies its stdin to stdout, prefixed "rank 0 read: "
 *   job_actions env VAR...            print "rank R VAR=VALUE" (or "VAR unset")
 *   job_actions lines COUNT           print COUNT numbered lines of 200 bytes each
 *   job_actions bad-comm              call MPI_Comm_rank on an invalid communicator
 *   job_actions stuck-recv            rank 0 sends rank 1 a tag-3 message and waits for ever; rank 1 waits for
 *                                     tag 7 from rank 0 for ever (for mpfinspect); other ranks wait for ever
 *   job_actions recv-cycle            rank 0 waits for tag 7 from rank 1, rank 1 for tag 9 from rank 0 (deadlock)
 *   job_actions tag-mismatch          rank 0 sends tag 1 to rank 1, then both wait: rank 1 for tag 2 from
 *                                     rank 0, rank 0 for tag 5 from rank 1 (deadlock)
 *   job_actions send-cycle            ranks 0 and 1 each send 1 MiB to the other before receiving (deadlock
 *                                     in rendezvous)
 *   job_actions any-source            rank 0 waits for a message from any rank, the others for one from
 *                                     rank 0 (deadlock)
 *   job_actions missing-send          rank 0 waits for tag 4 from rank 1, which finalizes instead (deadlock)
 *   job_actions coll-mismatch         rank 0 calls MPI_Bcast(root 1), the others MPI_Barrier (deadlock)
 *   job_actions coll-comm-mismatch    rank 0 calls MPI_Barrier on a duplicate of MPI_COMM_WORLD, the others
 *                                     on MPI_COMM_WORLD (deadlock)
 *   job_actions coll-subcomm          ranks 0-2 split off a communicator; ranks 0 and 1 call MPI_Barrier on it,
 *                                     rank 2 waits for tag 1 from rank 3 and rank 3 for tag 2 from rank 2 (deadlock)
 *   job_actions coll-completed        every rank calls MPI_Bcast(root 0) on MPI_COMM_WORLD; then rank 0 calls
 *                                     MPI_Bcast(root 0) again and finalizes, the others call MPI_Barrier (deadlock)
 *   job_actions coll-computing        rank 0 computes for SECONDS (default 60) before MPI_Bcast(root 0);
 *                                     the others wait in that MPI_Bcast (not a deadlock)
 *   job_actions rma-wait-cycle        rank 0 posts to rank 1 and waits in MPI_Win_wait; rank 1 waits for tag 3
 *                                     from rank 0 instead of accessing (deadlock)
 *   job_actions rma-start-no-post     rank 0 waits in MPI_Win_start for rank 1's post; rank 1 is in MPI_Barrier
 *                                     (deadlock)
 *   job_actions rma-lock-holder       rank 1 locks rank 2's window exclusively, then waits for tag 5 from
 *                                     rank 0; rank 0 waits in MPI_Win_lock at rank 2 behind it; rank 2 is in
 *                                     MPI_Barrier (deadlock)
 *   job_actions rma-fence-mismatch    rank 0 calls MPI_Win_fence, rank 1 MPI_Barrier (deadlock)
 *   job_actions write-until-stopped RANK CODE DIR
 *                                     every other rank writes numbered lines "rank R stdout|stderr line I"
 *                                     of 100 bytes to both streams, one write each, and after each pair
 *                                     stores I in DIR/rank.R (4 bytes, native order); it writes 100 pairs,
 *                                     waits in a barrier, then goes on writing until it is killed. RANK
 *                                     waits in the barrier, writes "rank RANK exits" to stderr and exits
 *                                     with CODE, so mpfrun stops the others while they write
 * Written in C99 against mpi.h, so it also checks that the header is C.
 */
#include <mpi.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1 = 0;
static void on_usr1(int signo) { (void)signo; got_usr1 = 1; }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: job_actions ACTION [ARGS]\n");
    return 2;
  }
  const char *action = argv[1];
  const int arg1 = argc > 2 ? atoi(argv[2]) : 0;
  const int arg2 = argc > 3 ? atoi(argv[3]) : 0;

  /* Signal handling is set up before MPI_Init so no SIGUSR1 can be missed. */
  sigset_t usr1, old;
  if (strcmp(action, "wait-signal") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, &old);
  }

  MPI_Init(&argc, &argv);
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);

  if (strcmp(action, "hello") == 0) {
    printf("hello from rank %d of %d on %s\n", rank, size, host);
  } else if (strcmp(action, "exit") == 0) {
    if (rank == arg1) exit(arg2);
  } else if (strcmp(action, "crash") == 0) {
    if (rank == arg1) raise(SIGSEGV);
  } else if (strcmp(action, "abort") == 0) {
    if (rank == arg1) MPI_Abort(MPI_COMM_WORLD, arg2);
  } else if (strcmp(action, "no-finalize") == 0) {
    if (rank == arg1) return 0;
  } else if (strcmp(action, "exit-waited") == 0) {
    if (rank == arg1) exit(0);
    int value = 0;
    MPI_Recv(&value, 1, MPI_INT, arg1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(action, "hang") == 0) {
    for (;;) pause();
  } else if (strcmp(action, "wait-signal") == 0) {
    printf("ready %d %d\n", rank, (int)getpid());
    fflush(stdout);
    while (!got_usr1) sigsuspend(&old);
    printf("rank %d got SIGUSR1\n", rank);
  } else if (strcmp(action, "echo-stdin") == 0) {
    if (rank == 0) {
      char line[4096];
      while (fgets(line, sizeof line, stdin) != NULL) printf("rank 0 read: %s", line);
    }
  } else if (strcmp(action, "env") == 0) {
    for (int i = 2; i < argc; ++i) {
      const char *value = getenv(argv[i]);
      if (value != NULL) {
        printf("rank %d %s=%s\n", rank, argv[i], value);
      } else {
        printf("rank %d %s unset\n", rank, argv[i]);
      }
    }
  } else if (strcmp(action, "lines") == 0) {
    char payload[201];
    memset(payload, 'a' + rank % 26, 200);
    payload[200] = '\0';
    for (int i = 0; i < arg1; ++i) printf("rank %d line %d %s\n", rank, i, payload);
  } else if (strcmp(action, "stuck-recv") == 0) {
    int value = 42;
    if (rank == 0) MPI_Send(&value, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d waits\n", rank);
    fflush(stdout);
    for (;;) pause();
  } else if (strcmp(action, "recv-cycle") == 0) {
    int value = 0;
    if (rank == 0) MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(action, "tag-mismatch") == 0) {
    int value = 0;
    if (rank == 0) {
      MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(action, "send-cycle") == 0) {
    static char big[1 << 20];
    if (rank < 2) MPI_Send(big, (int)sizeof big, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD);
  } else if (strcmp(action, "any-source") == 0) {
    int value = 0;
    MPI_Recv(&value, 1, MPI_INT, rank == 0 ? MPI_ANY_SOURCE : 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(action, "missing-send") == 0) {
    int value = 0;
    if (rank == 0) MPI_Recv(&value, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(action, "coll-mismatch") == 0) {
    int value = 0;
    if (rank == 0) {
      MPI_Bcast(&value, 1, MPI_INT, 1, MPI_COMM_WORLD);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (strcmp(action, "coll-comm-mismatch") == 0) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(rank == 0 ? dup : MPI_COMM_WORLD);
  } else if (strcmp(action, "coll-subcomm") == 0) {
    MPI_Comm sub;
    int value = 0;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : 1, rank, &sub);
    if (rank < 2) {
      MPI_Barrier(sub);
    } else if (rank == 2) {
      MPI_Recv(&value, 1, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&value, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (strcmp(action, "coll-completed") == 0) {
    int value = 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (strcmp(action, "coll-computing") == 0) {
    int value = 0;
    if (rank == 0) {
      const double until = MPI_Wtime() + (arg1 > 0 ? arg1 : 60);
      while (MPI_Wtime() < until) {
      }
    }
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  } else if (strcmp(action, "write-until-stopped") == 0) {
    if (rank == arg1) {
      MPI_Barrier(MPI_COMM_WORLD);
      fprintf(stderr, "rank %d exits\n", rank);
      exit(arg2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", argc > 4 ? argv[4] : ".", rank);
    const int record = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (record < 0) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0;; ++i) {
      /* stderr is unbuffered and stdout is flushed: each line is one write,
       * so a line stored in the record is in mpfrun's pipe, whole. */
      fprintf(stderr, "rank %d stderr line %6d %073d\n", rank, i, 0);
      printf("rank %d stdout line %6d %073d\n", rank, i, 0);
      fflush(stdout);
      if (pwrite(record, &i, sizeof i, 0) != (ssize_t)sizeof i) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      if (i == 99) MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (strncmp(action, "rma-", 4) == 0) {
    MPI_Win win;
    void *base = NULL;
    int value = 0;
    MPI_Group world, peer;
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int other = rank == 0 ? 1 : 0;
    MPI_Group_incl(world, 1, &other, &peer);
    if (strcmp(action, "rma-wait-cycle") == 0) {
      if (rank == 0) {
        MPI_Win_post(peer, 0, win);
        MPI_Win_wait(win);
      }
      if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(action, "rma-start-no-post") == 0) {
      if (rank == 0) {
        MPI_Win_start(peer, 0, win);
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
      }
    } else if (strcmp(action, "rma-lock-holder") == 0) {
      if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
        MPI_Send(&value, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
        MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
      }
    } else if (strcmp(action, "rma-fence-mismatch") == 0) {
      if (rank == 0) {
        MPI_Win_fence(0, win);
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
      }
    } else {
      fprintf(stderr, "job_actions: unknown action %s\n", action);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  } else if (strcmp(action, "bad-comm") == 0) {
    MPI_Comm_rank((MPI_Comm)12345, &rank);
  } else {
    fprintf(stderr, "job_actions: unknown action %s\n", action);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
