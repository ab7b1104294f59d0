#!/usr/bin/env python3
"""Runs one job under mpfrun for a CTest test and checks what it did.

Used by mpf_add_job_test (cmake/MpfTesting.cmake):

    run_job.py --mpfrun PATH --np N --timeout S [--expect-exit C]
               [--expect REGEX]... [--reject REGEX]... [--mpfrun-arg=OPT]...
               [--expect-counters EXPR] -- PROGRAM [ARGS...]

Checks, in order: the exit status is C; every --expect regex matches the
job's combined output (multi-line mode); no --reject regex matches; the
Python expression EXPR, over the job's counters summed over its ranks (from
mpfrun --report; e.g. "turn_sleeps > 0 and turn_timeouts == 0"), is true; and the job
left nothing behind: no new entry in /dev/shm, and nothing in the private
TMPDIR the job ran with. A job that outlives its timeout is stopped by mpfrun
itself (--timeout), which prints what every rank was doing; this script waits
a little longer and kills mpfrun only if mpfrun failed to do so.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def leftovers(tmpdir):
    found = []
    for root, dirs, files in os.walk(tmpdir):
        found += [os.path.join(root, f) for f in files]
        # An empty run directory (mpf-<uid>) is the registry, not the job's.
        found += [os.path.join(root, d) for d in dirs if not d.startswith("mpf-") or d.startswith("mpf-pmix-")]
    return found


def check_counters(report, expression):
    """The failures of `expression` over the report's counters, summed over ranks."""
    try:
        with open(report) as f:
            ranks = json.load(f)["ranks"]
    except (OSError, ValueError, KeyError) as e:
        return [f"no counters to check: {report}: {e}"]
    totals = {}
    for rank in ranks:
        for name, value in rank["counters"].items():
            totals[name] = totals.get(name, 0) + value
    used = {name: totals[name] for name in totals if re.search(rf"\b{name}\b", expression)}
    try:
        holds = eval(expression, {"__builtins__": {}}, dict(totals))
    except Exception as e:  # a typo in the test's expression, or a counter the report lacks
        return [f"bad --expect-counters expression {expression!r}: {type(e).__name__}: {e}"]
    if holds:
        return []
    return [f"counters {used} do not satisfy {expression!r}"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mpfrun", required=True)
    parser.add_argument("--np", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--expect-exit", type=int, default=0)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--reject", action="append", default=[])
    parser.add_argument("--mpfrun-arg", action="append", default=[])
    parser.add_argument("--expect-counters")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("no program given after --")

    shm_before = set(os.listdir("/dev/shm"))
    tmpdir = tempfile.mkdtemp(prefix="mpf-test-")
    env = dict(os.environ, TMPDIR=tmpdir)
    command = [args.mpfrun, "--timeout", str(args.timeout), "-n", str(args.np)] + args.mpfrun_arg
    # The report goes outside the job's TMPDIR, which must stay empty.
    report = tempfile.NamedTemporaryFile(prefix="mpf-test-report-", suffix=".json", delete=False).name
    if args.expect_counters:
        command += ["--report", report]
    command += program
    print("$ " + " ".join(command), flush=True)
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=env, timeout=args.timeout + 20)
        output = result.stdout.decode(errors="replace")
        status = result.returncode
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode(errors="replace")
        status = None
    sys.stdout.write(output)

    failures = []
    if status is None:
        failures.append("mpfrun did not stop the job at its own --timeout; killed it")
    elif status != args.expect_exit:
        failures.append(f"exit status {status}, expected {args.expect_exit}")
    for regex in args.expect:
        if not re.search(regex, output, re.MULTILINE):
            failures.append(f"output does not match {regex!r}")
    for regex in args.reject:
        if re.search(regex, output, re.MULTILINE):
            failures.append(f"output matches rejected {regex!r}")
    if args.expect_counters:
        failures += check_counters(report, args.expect_counters)
    os.unlink(report)
    new_shm = set(os.listdir("/dev/shm")) - shm_before
    mine = sorted(n for n in new_shm if n.startswith("mpf") or "pmix" in n)
    if mine:
        failures.append(f"left in /dev/shm: {mine}")
    left = leftovers(tmpdir)
    if left:
        failures.append(f"left in TMPDIR: {left}")
    shutil.rmtree(tmpdir, ignore_errors=True)

    for f in failures:
        print(f"run_job: FAIL: {f}")
    if not failures:
        print("run_job: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
