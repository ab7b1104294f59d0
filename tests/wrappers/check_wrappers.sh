#!/bin/sh
# check_wrappers.sh BIN_DIR MPFRUN SOURCE_DIR WORK_DIR
# Builds a C and a C++ MPI program with the build tree's mpicc and mpicxx and
# an MPF program with mpfcc, runs them under mpfrun, and checks -show /
# -compile-info / -link-info.
set -eu
bin=$1 mpfrun=$2 src=$3 work=$4
mkdir -p "$work"
fail() { echo "check_wrappers: FAIL: $*"; exit 1; }

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
