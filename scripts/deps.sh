#!/usr/bin/env bash
# Installs the Debian 12 packages the MPF Toolkit needs to build and test,
# skipping those already installed. Runs as root, or through sudo; never asks
# a question. This list is the one place the dependencies are written.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # compiler and build
  libcli11-dev                                   # command lines
  nlohmann-json3-dev                             # JSON
  libpmix-dev                                    # process wire-up (OpenPMIx)
  libnuma-dev                                    # placement and binding
  libfabric-dev                                  # network endpoints
  libgtest-dev libgmock-dev                      # unit tests
  python3 python3-jsonschema                     # test harness, report schema checks
  man-db groff-base                              # man pages and their checks
  openmpi-bin libopenmpi-dev mpich libmpich-dev  # other MPIs for mpftune bench --compare (and PMIx hosts in tests)
  slurmctld slurmd slurm-client                  # the tests' Slurm cluster of virtual nodes
  libfabric-bin                                  # fi_info, fi_pingpong: the network's providers and raw figures
  iproute2 util-linux                            # the tests' network and UTS namespaces (ip, unshare)
  gnuplot-nox                                    # mpftune bench's plots
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} Debian packages are installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo -n)
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
