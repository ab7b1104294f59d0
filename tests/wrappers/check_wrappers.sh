#!/bin/sh
# check_wrappers.sh BIN_DIR MPFRUN SOURCE_DIR WORK_DIR [mpi|shmem]
# mpi (the default): builds a C and a C++ MPI program with the build tree's
# mpicc and mpicxx and an MPF program with mpfcc, runs them under mpfrun, and
# checks -show / -compile-info / -link-info.
# shmem: checks the same of oshcc and oshcxx, and that oshrun, the link to
# mpfrun beside it, runs what they built and calls itself oshrun in its help.
set -eu
bin=$1 mpfrun=$2 src=$3 work=$4 suite=${5:-mpi}
mkdir -p "$work"
fail() { echo "check_wrappers: FAIL: $*"; exit 1; }

if [ "$suite" = shmem ]; then
  oshrun=$(dirname -- "$mpfrun")/oshrun
  [ -L "$oshrun" ] && [ "$oshrun" -ef "$mpfrun" ] || fail "$oshrun is not a link to $mpfrun"
  "$oshrun" --help | grep -q "usage: oshrun \[options\] PROGRAM" || fail "oshrun --help does not say oshrun"
  "$oshrun" --version | grep -q "^oshrun (MPF Toolkit)" || fail "oshrun --version"

  # What the wrappers print needs no library.
  show=$("$bin/oshcc" -c -show x.c)
  case $show in *" -c x.c") ;; *) fail "oshcc -c -show x.c printed: $show" ;; esac
  case $show in *-lshmem*) fail "a compile-only command links: $show" ;; esac
  case $("$bin/oshcc" -show x.c -o x) in *"-lshmem") ;; *) fail "oshcc -show does not link -lshmem" ;; esac
  case $("$bin/oshcxx" -show x.cpp -o x) in "c++ "*"-lshmem") ;; *) fail "oshcxx -show: not c++ linking -lshmem" ;; esac
  case $("$bin/oshcc" -compile-info) in "cc -I"*"lib/shmem/include") ;; *) fail "oshcc -compile-info" ;; esac
  case $("$bin/oshcxx" -compile-info) in "c++ -I"*) ;; *) fail "oshcxx -compile-info" ;; esac
  case $("$bin/oshcc" -link-info) in *"lib/shmem -lshmem") ;; *) fail "oshcc -link-info" ;; esac
  case $(OSHCC_CC=gcc "$bin/oshcc" -show a.c) in "gcc "*) ;; *) fail "OSHCC_CC is not honoured" ;; esac
  case $(OSHCXX_CXX=g++ "$bin/oshcxx" -show a.cpp) in "g++ "*) ;; *) fail "OSHCXX_CXX is not honoured" ;; esac
  "$bin/oshcc" --version | grep -q "oshcc (MPF Toolkit)" || fail "oshcc --version"
  "$bin/oshcxx" --version | grep -q "oshcxx (MPF Toolkit)" || fail "oshcxx --version"

  # shmem.h compiles as C99, as C11 (with the generic interfaces of
  # shmem_generic.h) and as C++; then the programs link against libshmem.
  "$bin/oshcc" -std=c11 -Wall -Wextra -Werror -pedantic-errors -c "$src/hello_shmem.c" -o "$work/hello_c11.o"
  "$bin/oshcc" -std=c99 -Wall -Wextra -Werror -pedantic-errors "$src/hello_shmem.c" -o "$work/hello_shmem"
  "$bin/oshcxx" -x c++ -std=c++17 -Wall -Wextra -Werror "$src/hello_shmem.c" -o "$work/hello_shmem_cxx"
  for exe in hello_shmem hello_shmem_cxx; do
    out=$("$oshrun" --timeout 60 -n 2 "$work/$exe")
    for pe in 0 1; do
      echo "$out" | grep -q "^shmem PE $pe of 2\$" || fail "$exe under oshrun: PE $pe did not say hello: $out"
    done
  done
  rm -rf "$work"
  echo "check_wrappers: ok (shmem)"
  exit 0
fi

"$bin/mpicc" -std=c99 -Wall -Wextra -Werror -pedantic-errors "$src/../../share/examples/hello.c" -o "$work/hello_c"
"$bin/mpicxx" -std=c++17 -Wall -Wextra -Werror "$src/hello_cxx.cpp" -o "$work/hello_cxx"
"$bin/mpfcc" -std=c99 -Wall -Wextra -Werror -pedantic-errors "$src/hello_mpf.c" -o "$work/hello_mpf"
out=$("$mpfrun" --timeout 60 -n 2 "$work/hello_mpf")
echo "$out" | grep -q "mpf process 1 of 2" || fail "mpfcc-built program: $out"
case $("$bin/mpfcc" -show x.c -o x) in *"-lmpf") ;; *) fail "mpfcc -show does not link -lmpf" ;; esac
case $("$bin/mpfcc" -compile-info) in *"lib/mpf/include"|*"/include") ;; *) fail "mpfcc -compile-info" ;; esac
"$bin/mpfcc" --version | grep -q "mpfcc (MPF Toolkit)" || fail "mpfcc --version"
out=$("$mpfrun" --timeout 60 -n 2 "$work/hello_c")
echo "$out" | grep -q "Hello from rank 1 of 2" || fail "mpicc-built program: $out"
out=$("$mpfrun" --timeout 60 -n 2 "$work/hello_cxx")
echo "$out" | grep -q "c++ rank 0 of 2" || fail "mpicxx-built program: $out"

show=$("$bin/mpicc" -c -show x.c)
case $show in *" -c x.c") ;; *) fail "mpicc -c -show x.c printed: $show" ;; esac
case $show in *-lmpi*) fail "a compile-only command links: $show" ;; esac
case $("$bin/mpicc" -show x.c -o x) in *"-lmpi") ;; *) fail "mpicc -show does not link -lmpi" ;; esac
case $("$bin/mpicxx" -compile-info) in "c++ -I"*) ;; *) fail "mpicxx -compile-info" ;; esac
case $("$bin/mpicc" -link-info) in *"-lmpi") ;; *) fail "mpicc -link-info" ;; esac
case $(MPICC_CC=gcc "$bin/mpicc" -show a.c) in "gcc "*) ;; *) fail "MPICC_CC is not honoured" ;; esac
"$bin/mpicc" --version | grep -q "mpicc (MPF Toolkit)" || fail "mpicc --version"
rm -rf "$work"
echo "check_wrappers: ok"
