/* MPF conversations: logical named virtual circuits among the processes of a
 * job (Malony, Reed and McGuire, "MPF: A Portable Message Passing Facility for
 * Shared Memory Multiprocessors"). Any process may join or leave a conversation
 * at any time, as a sender or as a receiver: every BROADCAST receiver gets every
 * message sent after it joined, each message goes to one FCFS receiver. See
 * man 3 mpf. */
#ifndef MPF_H
#define MPF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPF_VERSION 1
#define MPF_SUBVERSION 0

/* A conversation as this process has opened it: one connection, as a sender
 * or as a receiver. Handles are never reused within a process. */
typedef int mpf_lnvc_t;

/* Receiving protocols. */
enum { MPF_FCFS = 1, MPF_BROADCAST = 2 };

/* The longest conversation name, in bytes (without the terminating NUL). */
#define MPF_MAX_NAME 63

/* Return codes: MPF_SUCCESS, or one of these negative codes. */
#define MPF_SUCCESS 0
#define MPF_ERR_NOT_INITIALIZED (-1) /* mpf_init has not been called, or mpf_finalize has */
#define MPF_ERR_NAME (-2)            /* a conversation name that is NULL, empty or longer than MPF_MAX_NAME */
#define MPF_ERR_PROTOCOL (-3)        /* neither MPF_FCFS nor MPF_BROADCAST, or both on one conversation */
#define MPF_ERR_HANDLE (-4)          /* not a handle this process opened, or one it has closed */
#define MPF_ERR_ROLE (-5)            /* sending on a receive connection, receiving on a send connection */
#define MPF_ERR_TRUNCATE (-6)        /* the message is longer than the buffer; it stays queued */
#define MPF_ERR_RESOURCES (-7)       /* a limit was reached; mpf_error_string names the tunable */
#define MPF_ERR_ARG (-8)             /* a NULL pointer where a buffer, a length or a handle must be */
#define MPF_ERR_INITIALIZED (-9)     /* mpf_init called again (also after mpf_finalize) */
#define MPF_ERR_INTERN (-10)         /* the runtime failed; the reason was printed on stderr */

/* Joins the job (starting the runtime unless MPI or OpenSHMEM has). May be
 * called before or after MPI_Init and shmem_init; argc and argv may be NULL. */
int mpf_init(int *argc, char ***argv);
/* Collective over the job's processes (each calls mpf_init and
 * mpf_finalize): waits until every one has called mpf_finalize, then closes
 * this process's open connections and leaves the job. */
int mpf_finalize(void);
/* This process's id in the job (its MPI_COMM_WORLD rank), and the number of
 * processes; MPF_ERR_NOT_INITIALIZED outside mpf_init .. mpf_finalize. */
int mpf_rank(void);
int mpf_size(void);

/* Connects to conversation `name` (creating it if nobody has it open) as a
 * sender, or as a receiver with protocol MPF_FCFS or MPF_BROADCAST. */
int mpf_open_send(const char *name, mpf_lnvc_t *lnvc);
int mpf_open_receive(const char *name, int protocol, mpf_lnvc_t *lnvc);
/* Disconnects. When this was the conversation's last connection, the
 * conversation ends and its unread messages are discarded. */
int mpf_close_send(mpf_lnvc_t lnvc);
int mpf_close_receive(mpf_lnvc_t lnvc);

/* Queues a message of `bytes` bytes and returns; waits only while the
 * conversation's queue is full (mpf_queue_bytes). A message too large for any
 * queue is read from `buf` by its receivers, and mpf_send returns once they
 * have. */
int mpf_send(mpf_lnvc_t lnvc, const void *buf, size_t bytes);
/* Waits for the connection's next message and copies it to `buf`. *bytes:
 * the capacity of `buf` in, the message's length out. A message longer than
 * the capacity stays queued: MPF_ERR_TRUNCATE, *bytes its length. */
int mpf_receive(mpf_lnvc_t lnvc, void *buf, size_t *bytes);
/* > 0: a message is waiting for this receive connection (an FCFS receiver may
 * still lose it to another); 0: none; < 0: an error code. */
int mpf_check_receive(mpf_lnvc_t lnvc);

/* A static, one-line description of a return code. */
const char *mpf_error_string(int error);

#ifdef __cplusplus
}
#endif

#endif /* MPF_H */
