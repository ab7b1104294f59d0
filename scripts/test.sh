#!/usr/bin/env bash
# Quick start, command 2: build and run the whole test suite. .ci/run calls
# exactly this. The unit tests and the MPI, MPF and SHMEM job tests run twice: under
# AddressSanitizer and UndefinedBehaviorSanitizer first, then with everything
# else in the normal build, whose ctest summary ends the output.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/deps.sh

echo "== sanitizer build (ASan + UBSan): unit tests, then the MPI, MPF and SHMEM job tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMPF_SANITIZE=address >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -L unit -j"$jobs" --output-on-failure
# Every rank of these jobs runs sanitized; libpmix's own leaks are suppressed.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS=suppressions="$PWD/cmake/lsan-suppressions.txt" \
  ctest --test-dir build-asan -R '^(mpi|mpf|shmem)\.' -j"$jobs" --output-on-failure

echo "== release build: the whole suite"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure
