/*
 * refuse_cma.h: two ways the kernel refuses Cross Memory Attach, for tests
 * of the fallbacks (MPI's and MPF's). A program that includes it defines
 * _GNU_SOURCE (for syscall()) before any include, and includes its API's
 * test header (CHECK) first.
 *
 *   refuse_cma()       CMA to this rank fails with EPERM (process_vm_readv/
 *                      writev on it): it becomes non-dumpable and gives up
 *                      CAP_SYS_PTRACE, as where the kernel forbids ptrace
 *                      access between the ranks. Opening its descriptors
 *                      through /proc fails too.
 *   forbid_cma_calls() this rank's own process_vm_readv/writev fail with
 *                      EPERM, as under a container's seccomp profile
 *                      (Docker's default refuses them without CAP_SYS_PTRACE)
 */
#ifndef MPF_TESTS_COMMON_REFUSE_CMA_H
#define MPF_TESTS_COMMON_REFUSE_CMA_H

#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CHECK
#error "include the test header that defines CHECK (mpitest.h, mpftest.h) before refuse_cma.h"
#endif

static inline void refuse_cma(void) {
  CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0, "prctl(PR_SET_DUMPABLE, 0) failed");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct caps[2];
  CHECK(syscall(SYS_capget, &header, caps) == 0, "capget failed");
  caps[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
  caps[CAP_SYS_PTRACE / 32].permitted &= ~(1u << (CAP_SYS_PTRACE % 32));
  CHECK(syscall(SYS_capset, &header, caps) == 0, "capset without CAP_SYS_PTRACE failed");
}

static inline void forbid_cma_calls(void) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
  };
  struct sock_fprog program = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
  CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "prctl(PR_SET_NO_NEW_PRIVS) failed");
  CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0, "installing the seccomp filter failed");
}

#endif
