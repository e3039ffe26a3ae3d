#!/usr/bin/env python3
"""Differential check of Tessel's graph-level printing against Apache TVM 0.27.

For every compiler-core/tests/data/graph/<name>.py that TVM accepts (files with an `# expect:` line
must be rejected by both), and for the course's and TVM 0.27's dialects (`--dialect block`, `--dialect tirx`):

  (a) TVM parses Tessel's printing (`tessel fmt`, converted with `to_tvm027_graph`),
  (b) into IR structurally equal to TVM's parse of the source (`map_free_vars=True`, functions
      matched by name, `global_symbol` dropped),
  (c) and `fmt` is a fixpoint.

This checks what byte comparison cannot: that the course-form printing of symbolic shapes (strings in
the signature, `n = T.int64()` in the body) and the course spellings (`out_sinfo=`, `"void"`) mean
the same IR to TVM.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/graph_differential.py --tessel PATH [-v]

PATH is the CLI binary (target/debug/tessel) or a command line. One line per case, then
`graph differential: N passed, M failed`; exit status 1 if anything failed.
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

from graph_compat import graph_structural_diff, parse_graph_all, to_tvm027_graph  # noqa: E402
from tvm_compat import ParseFailure  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.join(REPO, "compiler-core", "tests", "data", "graph")


def run_fmt(tessel: list[str], path: str, dialect: str | None, timeout: float) -> tuple[int, str, str]:
    cmd = tessel + ["fmt"] + (["--dialect", dialect] if dialect else []) + [path]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def supported_dialects(tessel: list[str]) -> list[str | None]:
    """The course's (`block`) and TVM 0.27's (`tirx`) dialects of `tessel fmt --dialect`."""
    p = subprocess.run(tessel + ["fmt", "--help"], capture_output=True, text=True)
    text = p.stdout + p.stderr
    if "--dialect" not in text:
        return [None]
    return [d for d in ("block", "tirx") if d in text] or [None]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessel", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    tessel = shlex.split(args.tessel)
    dialects = supported_dialects(tessel)
    passed = failed = 0
    for path in sorted(glob.glob(os.path.join(SRC, "*.py"))):
        name = os.path.basename(path)
        src = open(path, encoding="utf-8").read()
        expect_fail = any(line.startswith("# expect:") for line in src.splitlines())
        if expect_fail:
            code, out, err = run_fmt(tessel, path, None, args.timeout)
            ok = code == 1 and "error" in (out + err)
            print(f"{'ok  ' if ok else 'FAIL'} {name}: rejected as expected" if ok else f"FAIL {name}: fmt exit {code}")
            passed += ok
            failed += not ok
            continue
        theirs = parse_graph_all(to_tvm027_graph(src), name)
        for dialect in dialects:
            label = f"{name} [{dialect or 'source'}]"
            code, out, err = run_fmt(tessel, path, dialect, args.timeout)
            if code != 0:
                failed += 1
                print(f"FAIL {label}: fmt exit {code}: {err.strip().splitlines()[:3]}")
                continue
            try:
                ours = parse_graph_all(to_tvm027_graph(out), "ours_" + name)
            except ParseFailure as e:
                failed += 1
                print(f"FAIL {label}: (a) TVM rejects Tessel's printing: {e.message.splitlines()[0]}")
                if args.verbose:
                    print(out)
                continue
            if len(ours) != len(theirs):
                failed += 1
                print(f"FAIL {label}: (b) {len(ours)} items vs TVM's {len(theirs)}")
                continue
            diff = None
            for a, b in zip(ours.values(), theirs.values()):
                diff = graph_structural_diff(a, b)
                if diff:
                    break
            if diff:
                failed += 1
                print(f"FAIL {label}: (b) {diff.splitlines()[0]}")
                continue
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as tmp:
                tmp.write(out)
            try:
                code2, out2, _ = run_fmt(tessel, tmp.name, dialect, args.timeout)
            finally:
                os.unlink(tmp.name)
            if code2 != 0 or out2 != out:
                failed += 1
                print(f"FAIL {label}: (c) fmt is not a fixpoint")
                continue
            passed += 1
            print(f"ok   {label}")
    print(f"graph differential: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
