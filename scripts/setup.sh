#!/usr/bin/env bash
# Quick start, command 1: install what is needed, build, and run a demo job.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"

echo
echo "Demo: four ranks started by mpfrun pass greetings around a ring"
echo "\$ build/launcher/mpfrun -n 4 --tag-output build/share/hello"
build/launcher/mpfrun -n 4 --tag-output build/share/hello
