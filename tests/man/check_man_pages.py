#!/usr/bin/env python3
"""Checks the man pages of the MPF Toolkit (man/) against the programs they describe.

Used by tests/man/CMakeLists.txt:

    check_man_pages.py render PAGE...
        Each PAGE renders with `man --warnings -l -E UTF-8 PAGE` and with
        `groff -k -man -ww -z PAGE` without a single line on standard error.
    check_man_pages.py options --mpfrun PATH [--subcommand NAME] PAGE
        Every long option that `PATH --help` (or `PATH NAME --help`) prints
        appears in PAGE; PATH is mpfrun, or another command such as mpftune.
    check_man_pages.py tunables --mpfrun PATH PAGE
        Every tunable that `mpfrun --list-params` prints has an entry in PAGE
        (the generated mpf.7) with its MPF_ variable, its description and,
        for a tunable at its default, that default.

Pages are compared as a reader sees them: rendered by groff to plain text,
on long lines and without hyphenation, so that roff escapes (\\-, \\fB) and
line breaks do not hide a word. Needs man-db (man) and groff-base (groff).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

PACKAGES = {"man": "man-db", "groff": "groff-base"}


class CheckFailed(Exception):
    pass


def tool(name):
    path = shutil.which(name)
    if path is None:
        raise CheckFailed(f"{name} is not installed (Debian package {PACKAGES[name]})")
    return path


def tool_env():
    # A fixed locale that always exists: man-db complains on stderr about a
    # broken one, which would read as a warning about the page.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "MAN"))}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", MANWIDTH="80")
    return env


def run(command, env=None):
    result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, timeout=60)
    return result.returncode, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")


def rendered_text(page):
    """The page as plain text: one line per paragraph line, no hyphenation."""
    status, out, err = run([tool("groff"), "-k", "-man", "-Tutf8", "-rHY=0", "-rLL=2000n",
                            "-P-c", "-P-b", "-P-u", page], env=tool_env())
    if status != 0 or not out.strip():
        raise CheckFailed(f"groff could not render {page} (status {status}): {err.strip()}")
    # Typographic forms a groff other than Debian's may produce for '-' and '\''.
    for fancy, plain in (("\u2010", "-"), ("\u2212", "-"), ("\u2019", "'"), ("\u2018", "'"),
                         ("\u201c", '"'), ("\u201d", '"')):
        out = out.replace(fancy, plain)
    return out


def squeeze(text):
    return " ".join(text.split())


def has_token(text, token):
    return re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", text) is not None


def check_render(pages):
    failures = []
    for page in pages:
        before = len(failures)
        if not os.path.isfile(page):
            failures.append(f"{page}: no such file")
            continue
        commands = [
            [tool("man"), "--warnings", "-l", "-E", "UTF-8", page],
            [tool("groff"), "-k", "-man", "-ww", "-z", page],
        ]
        for command in commands:
            status, out, err = run(command, env=tool_env())
            shown = " ".join(command)
            if status != 0:
                failures.append(f"{shown}: exit status {status}")
            for line in err.splitlines():
                failures.append(f"{shown}: {line}")
            if command[1] == "--warnings" and not out.strip():
                failures.append(f"{shown}: rendered nothing")
        if len(failures) == before:
            print(f"ok: {page} renders without warnings")
    return failures


def check_options(mpfrun, page, subcommand=None):
    status, out, err = run([mpfrun, *([subcommand] if subcommand else []), "--help"])
    if status != 0:
        raise CheckFailed(f"{mpfrun} --help: exit status {status}: {err.strip()}")
    options = []
    for line in out.splitlines():
        # Option lines: "  -n,--np INT ...", "  --tag-output   Prefix ...".
        if re.match(r"^\s+-", line):
            for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line):
                if option not in options:
                    options.append(option)
    if not options:
        raise CheckFailed(f"{mpfrun} --help printed no long option; is its format still the one this test reads?")
    text = rendered_text(page)
    failures = [f"{page}: option {o} of mpfrun --help is not documented" for o in options
                if not has_token(text, o)]
    if not failures:
        print(f"ok: {page} documents all {len(options)} long options: {' '.join(options)}")
    return failures


def list_params(mpfrun):
    """[(name, value, source, doc)] from mpfrun --list-params, every tunable at its default."""
    # No stray MPF_* from the caller's environment, and no tuning file.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPF_")}
    status, out, err = run([mpfrun, "--set", "tuning_file=", "--list-params"], env=env)
    if status != 0:
        raise CheckFailed(f"{mpfrun} --list-params: exit status {status}: {err.strip()}")
    lines = out.splitlines()
    header = lines[0] if lines else ""
    columns = [header.find(word) for word in ("NAME", "VALUE", "SOURCE", "DESCRIPTION")]
    if columns[0] != 0 or sorted(columns) != columns or -1 in columns:
        raise CheckFailed(f"mpfrun --list-params: unexpected header {header!r}")
    rows = []
    for line in lines[1:]:
        if not line.strip():
            continue
        cells = [line[a:b].strip() for a, b in zip(columns, columns[1:] + [len(line)])]
        rows.append(tuple(cells))
    if not rows:
        raise CheckFailed("mpfrun --list-params printed no tunable")
    return rows


def check_tunables(mpfrun, page):
    rows = list_params(mpfrun)
    text = rendered_text(page)
    section = re.search(r"^TUNABLES\n(.*?)(?=^\S|\Z)", text, re.M | re.S)
    if section is None:
        return [f"{page}: no TUNABLES section"]
    body = section.group(1)
    # Entries are in table order; each starts on a line beginning with its name.
    starts = []
    failures = []
    for name, _, _, _ in rows:
        match = re.search(r"^\s+" + re.escape(name) + r"(?![\w-])", body, re.M)
        if match is None:
            failures.append(f"{page}: tunable {name} has no entry")
        starts.append(match.start() if match else None)
    found = sorted(s for s in starts if s is not None)
    for (name, value, source, doc), start in zip(rows, starts):
        if start is None:
            continue
        later = [s for s in found if s > start]
        entry = body[start:later[0] if later else len(body)]
        variable = "MPF_" + name.upper()
        if not has_token(entry, variable):
            failures.append(f"{page}: entry of {name} does not name {variable}")
        if squeeze(doc) not in squeeze(entry):
            failures.append(f"{page}: entry of {name} lacks its description {doc!r}")
        if source == "default":
            shown = "empty" if value == '""' else value
            if f"Default: {shown}" not in squeeze(entry):
                failures.append(f"{page}: entry of {name} does not give its default {shown!r}")
    if not failures:
        print(f"ok: {page} documents all {len(rows)} tunables: {' '.join(r[0] for r in rows)}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="check", required=True)
    render = commands.add_parser("render", help="pages render without warnings")
    render.add_argument("pages", nargs="+")
    for name, text in (("options", "mpfrun's options are documented"), ("tunables", "tunables are documented")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("--mpfrun", required=True)
        if name == "options":
            sub.add_argument("--subcommand")
        sub.add_argument("page")
    args = parser.parse_args()
    try:
        if args.check == "render":
            failures = check_render(args.pages)
        elif args.check == "options":
            failures = check_options(args.mpfrun, args.page, args.subcommand)
        else:
            failures = check_tunables(args.mpfrun, args.page)
    except CheckFailed as e:
        failures = [str(e)]
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
