#!/usr/bin/env python3
"""Differential test of Tessel's TVMScript front end against Apache TVM 0.27.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/differential.py --tessel PATH [--files FILE...]
        [--seeds DIR] [--verify-fail DIR] [--timeout SEC] [--check-seeds] [-v]

PATH is the Tessel CLI (a binary, or a command line such as "cargo run -q -p cli --"; it is split
with shell rules when no file of that name exists). It must provide:

    PATH fmt FILE     print the canonical TVMScript form of FILE on stdout, in FILE's dialect; exit 0
    PATH check FILE   verify FILE; on an invalid program exit 1 and print a diagnostic that contains
                      the word `error` and a caret `^` (stdout or stderr)

Cases (one output line each):

* every `*.py` in the seeds directory (default compiler-core/tests/data/seeds):
    (a) TVM parses `to_tvm027(fmt(FILE))`;
    (b) that parse is structurally equal (`tvm.ir.assert_structural_equal(..., map_free_vars=True)`,
        function by function, `global_symbol` dropped) to TVM's parse of `to_tvm027(FILE)`.
        Where TVM's own printing is not round-trip exact (e.g. `access_ptr`), being equal to TVM's
        re-parse of its own printing is accepted too, and said so on the `ok` line;
    (c) `fmt` is a fixpoint: `fmt(fmt(FILE)) == fmt(FILE)` (text equality);
    (with --check-seeds also: `check FILE` exits 0).
* every `*.py` in the verify_fail directory (default compiler-core/tests/data/verify_fail):
    `check FILE` exits 1, its output contains `error` and `^`, and it did not crash.

Exit codes 101 (Rust panic), 134 (abort), 139 (segfault) and death by a signal count as crashes.
The last line is exactly `differential: N passed, M failed`; the exit status is 1 if any case failed.

--files restricts the run to the given files; a file under the verify_fail directory (or any file
whose first line starts with `# expect:`) is a verify_fail case, anything else a seed case.
"""

from __future__ import annotations

import argparse
import glob
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

from tvm_compat import ParseFailure, parse_tvm, structural_diff, to_tvm027  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "compiler-core", "tests", "data")
DEFAULT_SEEDS = os.path.join(DATA, "seeds")
DEFAULT_VERIFY_FAIL = os.path.join(DATA, "verify_fail")

VERBOSE = False

CRASH_CODES = {101: "panic (exit 101)", 134: "abort (exit 134)", 139: "segfault (exit 139)"}


def _short(text: str, limit: int = 300) -> str:
    text = " | ".join(l.strip() for l in text.strip().splitlines() if l.strip())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Tessel:
    def __init__(self, spec: str, timeout: float):
        if os.path.exists(spec):
            self.argv = [os.path.abspath(spec)]
        else:
            self.argv = shlex.split(spec)
        self.timeout = timeout

    def run(self, sub: str, path: str) -> tuple[int | None, str, str]:
        """(exit code or None on timeout, stdout, stderr)."""
        try:
            p = subprocess.run(
                self.argv + [sub, path],
                capture_output=True,
                text=True,
                timeout=self.timeout,
                encoding="utf-8",
                errors="replace",
            )
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            return None, out, err
        except OSError as e:
            return 127, "", f"cannot run {self.argv!r}: {e}"
        return p.returncode, p.stdout, p.stderr


def crash_reason(code: int | None, timeout: float) -> str | None:
    if code is None:
        return f"timeout after {timeout:g}s"
    if code in CRASH_CODES:
        return "crash: " + CRASH_CODES[code]
    if code < 0:
        return f"crash: killed by signal {-code}"
    return None


_tvm_cache: dict[str, object] = {}


def tvm_parse_original(path: str):
    if path not in _tvm_cache:
        with open(path, encoding="utf-8") as f:
            _tvm_cache[path] = parse_tvm(to_tvm027(f.read()), os.path.basename(path))
    return _tvm_cache[path]


def seed_case(tessel: Tessel, path: str, tmpdir: str, check_seeds: bool) -> tuple[bool, str]:
    name = os.path.basename(path)
    try:
        theirs = tvm_parse_original(path)
    except ParseFailure as e:
        return False, f"TVM rejects the ORIGINAL seed file (fix it or move it out): {e.kind}: {_short(e.message)}"

    problems: list[str] = []
    notes: list[str] = []

    code, out, err = tessel.run("fmt", path)
    crash = crash_reason(code, tessel.timeout)
    if crash:
        return False, f"fmt: {crash}: {_short(err)}"
    if code != 0:
        return False, f"fmt exited {code}: {_short(err or out)}"
    ours_text = out

    # (a) TVM parses our output
    ours = None
    try:
        ours = parse_tvm(to_tvm027(ours_text), "fmt_" + name)
    except ParseFailure as e:
        problems.append(f"(a) TVM cannot parse fmt output: {e.kind}: {_short(e.message)}")

    # (b) same program as TVM's parse of the original
    if ours is not None:
        diff = structural_diff(ours, theirs)
        if diff is not None:
            # TVM's own printing is not always round-trip exact; accept matching its re-parse
            try:
                tvm_rt = parse_tvm(to_tvm027(theirs.script()), "tvmrt_" + name)
                diff_rt = structural_diff(ours, tvm_rt)
            except ParseFailure:
                diff_rt = "TVM cannot re-parse its own printing"
            if diff_rt is None:
                notes.append("(b) equals TVM's re-parse of its own printing, not TVM's parse of the input")
            else:
                detail = diff if VERBOSE else diff.strip().splitlines()[0]
                problems.append(f"(b) not structurally equal to TVM's parse of the input: {_short(detail, 100000 if VERBOSE else 400)}")

    # (c) fixpoint
    sub = os.path.join(tmpdir, "fmt1")
    os.makedirs(sub, exist_ok=True)
    once = os.path.join(sub, name)
    with open(once, "w", encoding="utf-8") as f:
        f.write(ours_text)
    code2, out2, err2 = tessel.run("fmt", once)
    crash = crash_reason(code2, tessel.timeout)
    if crash:
        problems.append(f"(c) fmt of fmt output: {crash}: {_short(err2)}")
    elif code2 != 0:
        problems.append(f"(c) fmt of fmt output exited {code2}: {_short(err2 or out2)}")
    elif out2 != ours_text:
        problems.append(f"(c) not a fixpoint: fmt(fmt(x)) != fmt(x) ({_first_diff(ours_text, out2)})")

    if check_seeds:
        code3, out3, err3 = tessel.run("check", path)
        crash = crash_reason(code3, tessel.timeout)
        if crash:
            problems.append(f"check: {crash}: {_short(err3)}")
        elif code3 != 0:
            problems.append(f"check rejects a valid seed (exit {code3}): {_short(err3 or out3)}")

    if problems:
        return False, "; ".join(problems)
    return True, "; ".join(notes)


def _first_diff(a: str, b: str) -> str:
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x.strip()!r} vs {y.strip()!r}"
    if len(la) != len(lb):
        return f"{len(la)} vs {len(lb)} lines"
    return "whitespace/newline difference"


def verify_fail_case(tessel: Tessel, path: str) -> tuple[bool, str]:
    code, out, err = tessel.run("check", path)
    crash = crash_reason(code, tessel.timeout)
    if crash:
        return False, f"check: {crash}: {_short(err)}"
    text = out + "\n" + err
    problems = []
    if code != 1:
        problems.append(f"check exited {code}, expected 1")
    if "error" not in text:
        problems.append("diagnostic lacks the word `error`")
    if "^" not in text:
        problems.append("diagnostic lacks a caret `^`")
    if problems:
        return False, "; ".join(problems) + (f" (output: {_short(text, 200)})" if text.strip() else " (no output)")
    return True, ""


def is_verify_fail(path: str, vf_dir: str) -> bool:
    ap = os.path.abspath(path)
    if os.path.commonpath([ap, os.path.abspath(vf_dir)]) == os.path.abspath(vf_dir):
        return True
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().startswith("# expect:")
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessel", required=True, help="Tessel CLI binary or command line")
    ap.add_argument("--files", nargs="+", help="only these files")
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--verify-fail", default=DEFAULT_VERIFY_FAIL)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per CLI invocation")
    ap.add_argument("--check-seeds", action="store_true", help="also require `check SEED` to exit 0")
    ap.add_argument("-v", "--verbose", action="store_true", help="full structural-equality reports")
    args = ap.parse_args(argv)
    global VERBOSE
    VERBOSE = args.verbose

    tessel = Tessel(args.tessel, args.timeout)
    if args.files:
        seeds = [f for f in args.files if not is_verify_fail(f, args.verify_fail)]
        vfs = [f for f in args.files if is_verify_fail(f, args.verify_fail)]
    else:
        seeds = sorted(glob.glob(os.path.join(args.seeds, "*.py")))
        vfs = sorted(glob.glob(os.path.join(args.verify_fail, "*.py")))

    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="tessel_differential_") as tmpdir:
        for path in seeds:
            ok, why = seed_case(tessel, path, tmpdir, args.check_seeds)
            label = f"seed {os.path.basename(path)}"
            if ok:
                passed += 1
                print(f"ok   {label}" + (f" ({why})" if why else ""))
            else:
                failed += 1
                print(f"FAIL {label}: {why}")
            sys.stdout.flush()
        for path in vfs:
            ok, why = verify_fail_case(tessel, path)
            label = f"verify_fail {os.path.basename(path)}"
            if ok:
                passed += 1
                print(f"ok   {label}")
            else:
                failed += 1
                print(f"FAIL {label}: {why}")
            sys.stdout.flush()
    print(f"differential: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
