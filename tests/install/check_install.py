#!/usr/bin/env python3
"""Installs the build into a temporary prefix and uses it as a user would.

    check_install.py BUILD_DIR

Checks the prefix layout, compiles the installed example with the installed
pkg-config file, runs it under the installed mpfrun, builds an OpenSHMEM
program with the installed oshcc, oshcxx and pkg-config file and runs it under
the installed oshrun, measures ping-pong with the installed mpftune (which must
find the installed mpfrun and kernels), and reads the installed man pages.
Removes the prefix afterwards.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120, **kw)


def main():
    build = sys.argv[1]
    prefix = tempfile.mkdtemp(prefix="mpf-install-")
    try:
        run(["cmake", "--install", build, "--prefix", prefix])
        libdir = next(d for d in ("lib", "lib64") if os.path.isdir(os.path.join(prefix, d)))
        expected = [
            "bin/mpfrun", "bin/mpfinspect", "bin/mpftune", "bin/mpicc", "bin/mpicxx", "bin/mpfcc",
            "bin/oshcc", "bin/oshcxx", "bin/oshrun",
            "libexec/mpf/kernel_pingpong", "share/mpf/kernels/pingpong.c", "share/mpf/kernels/kernel_util.h",
            f"{libdir}/libmpi.so", f"{libdir}/libmpf.so", f"{libdir}/libshmem.so", f"{libdir}/libmpfrt.so",
            "include/mpi.h", "include/mpf.h", "include/shmem.h", "include/shmem_generic.h",
            f"{libdir}/pkgconfig/mpf-mpi.pc", f"{libdir}/pkgconfig/mpf-mpf.pc", f"{libdir}/pkgconfig/mpf-shmem.pc",
            "share/man/man1/mpfcc.1", "share/man/man3/mpf.3",
            "share/man/man1/oshcc.1", "share/man/man1/oshcxx.1", "share/man/man1/oshrun.1", "share/man/man3/shmem.3",
            "share/man/man1/mpfrun.1", "share/man/man1/mpfinspect.1", "share/man/man1/mpftune.1", "share/man/man1/mpicc.1", "share/man/man3/mpi.3", "share/man/man7/mpf.7",
            "share/mpf/schemas/mpfrun-report.schema.json", "share/mpf/schemas/mpftune-bench.schema.json",
            "share/mpf/examples/hello.c", "share/mpf/examples/mpf_base.c",
        ]
        missing = [p for p in expected if not os.path.exists(os.path.join(prefix, p))]
        if missing:
            print(f"check_install: FAIL: missing from the prefix: {missing}")
            return 1

        oshrun = os.path.join(prefix, "bin/oshrun")
        if not os.path.islink(oshrun) or os.readlink(oshrun) != "mpfrun":
            print("check_install: FAIL: the installed oshrun is not a link to mpfrun beside it")
            return 1

        version = run([os.path.join(prefix, "bin/mpfrun"), "--version"]).stdout
        if "(MPF Toolkit)" not in version:
            print(f"check_install: FAIL: installed mpfrun --version printed {version!r}")
            return 1

        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, libdir, "pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "mpf-mpi"], env=env).stdout.split()
        exe = os.path.join(prefix, "hello")
        run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", os.path.join(prefix, "share/mpf/examples/hello.c"),
             "-o", exe, *flags])
        env = {k: v for k, v in os.environ.items() if not k.startswith("MPF_")}
        # The defaults, not the machine's tuning file (cmake/MpfTesting.cmake, MPF_TEST_ENVIRONMENT).
        env["MPF_TUNING_FILE"] = ""
        env["TMPDIR"] = prefix
        out = run([os.path.join(prefix, "bin/mpfrun"), "--timeout", "60", "-n", "3", exe], env=env).stdout
        for rank in range(3):
            if f"Hello from rank {rank} of 3" not in out:
                print(f"check_install: FAIL: rank {rank} did not say hello:\n{out}")
                return 1

        wrapped = os.path.join(prefix, "hello_wrapped")
        run([os.path.join(prefix, "bin/mpicc"), os.path.join(prefix, "share/mpf/examples/hello.c"), "-o", wrapped])
        out = run([os.path.join(prefix, "bin/mpfrun"), "--timeout", "60", "-n", "2", wrapped], env=env).stdout
        if "Hello from rank 1 of 2" not in out:
            print(f"check_install: FAIL: the program built by the installed mpicc did not run:\n{out}")
            return 1

        # An MPF program, with the installed mpfcc and with pkg-config.
        base = os.path.join(prefix, "share/mpf/examples/mpf_base.c")
        wrapped = os.path.join(prefix, "mpf_base_wrapped")
        run([os.path.join(prefix, "bin/mpfcc"), "-std=c99", "-Wall", "-Wextra", "-Werror", base, "-o", wrapped])
        pc_env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, libdir, "pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "mpf-mpf"], env=pc_env).stdout.split()
        built = os.path.join(prefix, "mpf_base_pc")
        run(["cc", "-std=c99", base, "-o", built, *flags])
        for exe in (wrapped, built):
            out = run([os.path.join(prefix, "bin/mpfrun"), "--timeout", "60", "-n", "2", exe], env=env).stdout
            if "mpf_base ok" not in out:
                print(f"check_install: FAIL: the installed toolkit's MPF example {exe} did not run:\n{out}")
                return 1

        # An OpenSHMEM program, with the installed oshcc and oshcxx and with
        # pkg-config, run by the installed oshrun.
        source = os.path.join(prefix, "hello_shmem.c")
        with open(source, "w") as f:
            f.write("#include <shmem.h>\n#include <stdio.h>\n"
                    "int main(void) {\n  shmem_init();\n"
                    "  printf(\"shmem PE %d of %d\\n\", shmem_my_pe(), shmem_n_pes());\n"
                    "  shmem_finalize();\n  return 0;\n}\n")
        flags = run(["pkg-config", "--cflags", "--libs", "mpf-shmem"], env=pc_env).stdout.split()
        built = {
            "oshcc": [os.path.join(prefix, "bin/oshcc"), "-std=c11", "-Wall", "-Wextra", "-Werror", source],
            "oshcxx": [os.path.join(prefix, "bin/oshcxx"), "-x", "c++", "-Wall", "-Wextra", "-Werror", source],
            "pkg-config": ["cc", "-std=c99", source, *flags],
        }
        for how, command in built.items():
            exe = os.path.join(prefix, f"hello_shmem_{how}")
            run([*command, "-o", exe])
            out = run([oshrun, "--timeout", "60", "-n", "2", exe], env=env).stdout
            if "shmem PE 1 of 2" not in out:
                print(f"check_install: FAIL: the OpenSHMEM program built with the installed {how} did not run "
                      f"under the installed oshrun:\n{out}")
                return 1

        # The installed mpftune finds the installed mpfrun and kernels.
        out = run([os.path.join(prefix, "bin/mpftune"), "bench", "--quick", "--kernels", "pingpong"], env=env).stdout
        if "pingpong, 2 ranks" not in out:
            print(f"check_install: FAIL: the installed mpftune did not measure ping-pong:\n{out}")
            return 1

        page = run(["man", "-l", "-P", "cat", os.path.join(prefix, "share/man/man1/mpfrun.1")]).stdout
        if "--timeout" not in page:
            print("check_install: FAIL: the installed mpfrun(1) does not render")
            return 1
        # oshrun.1 is a .so link to mpfrun.1, which man resolves from the top of the man tree.
        mandir = os.path.join(prefix, "share/man")
        page = run(["man", "-l", "-P", "cat", "man1/oshrun.1"], cwd=mandir).stdout
        if "--timeout" not in page:
            print("check_install: FAIL: the installed oshrun(1) does not lead to mpfrun(1)")
            return 1
        page = run(["man", "-l", "-P", "cat", os.path.join(mandir, "man3/shmem.3")]).stdout
        if "SHMEM_SYMMETRIC_SIZE" not in page:
            print("check_install: FAIL: the installed shmem(3) does not render")
            return 1
        print("check_install: ok")
        return 0
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
