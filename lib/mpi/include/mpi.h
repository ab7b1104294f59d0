/*
 * mpi.h: the MPI interface of the MPF Toolkit (C bindings, MPI-3.1 semantics).
 *
 * This header is C99 and C++: it compiles in both, and every declaration has
 * C linkage. It holds what the toolkit implements today: the environment
 * chapter (init, finalize, abort, timers, versions) and the rank and size of
 * the predefined communicators. Point-to-point, datatypes, collectives and
 * RMA arrive with their issues; nothing is declared here before it works.
 */
#ifndef MPF_MPI_H
#define MPF_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* Handles are integers. The predefined communicators: */
typedef int MPI_Comm;
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

/* Error classes used by the calls above. */
#define MPI_SUCCESS 0
#define MPI_ERR_COMM 5
#define MPI_ERR_ARG 13
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17

/* Thread support levels (MPI_Init_thread, MPI_Query_thread). */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* Environment */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Query_thread(int *provided);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
double MPI_Wtime(void);
double MPI_Wtick(void);

/* Communicators */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);

#ifdef __cplusplus
}
#endif

#endif /* MPF_MPI_H */
