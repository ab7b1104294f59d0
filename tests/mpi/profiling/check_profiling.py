#!/usr/bin/env python3
"""The profiling interface is complete (MPI-3.1 §14.2).

  check_profiling.py MPI_H LIBMPI_SO

mpi.h declares a PMPI_ twin, with the same parameters, of every MPI_
function it declares, and no other PMPI_; libmpi exports every declared
function under both names, the PMPI_ one defined and the MPI_ one a weak
alias a tool may replace; and it exports no MPI_ or PMPI_ function that
mpi.h does not declare. Prints what is wrong and exits 1, or one "ok" line.
"""
import re
import subprocess
import sys

# Functions return int, double, or an MPI type (MPI_Aint, MPI_Fint, and the
# handles the f2c conversions return).
DECL = re.compile(r"^(?:int|double|MPI_[A-Z][A-Za-z]*) (P?MPI_[A-Za-z0-9_]+)\(([^;]*?)\);", re.M)


def main():
    header, library = sys.argv[1], sys.argv[2]
    decls = {}
    for name, params in DECL.findall(open(header).read()):
        decls[name] = " ".join(params.split())
    problems = []
    mpi = sorted(n for n in decls if n.startswith("MPI_"))
    for name in mpi:
        twin = decls.get("P" + name)
        if twin is None:
            problems.append(f"mpi.h declares {name} but not P{name}")
        elif twin != decls[name]:
            problems.append(f"P{name}'s parameters ({twin}) differ from {name}'s ({decls[name]})")
    for name in decls:
        if name.startswith("PMPI_") and name[1:] not in decls:
            problems.append(f"mpi.h declares {name} but not {name[1:]}")
    symbols = {}
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and re.match(r"P?MPI_", parts[2]):
            symbols[parts[2]] = parts[1]
    for name in mpi:
        if symbols.get("P" + name) != "T":
            problems.append(f"{library} does not define P{name} (nm: {symbols.get('P' + name, 'absent')})")
        if symbols.get(name) != "W":
            problems.append(f"{library}'s {name} is not a weak alias (nm: {symbols.get(name, 'absent')})")
    for name in sorted(symbols):
        if name not in decls:
            problems.append(f"{library} exports {name}, which mpi.h does not declare")
    for p in problems:
        print("check_profiling: " + p)
    if problems:
        return 1
    print(f"check_profiling ok: {len(mpi)} functions, each with its PMPI_ twin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
