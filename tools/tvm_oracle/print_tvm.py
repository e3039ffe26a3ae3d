#!/usr/bin/env python3
"""Write TVM 0.27's own canonical printing of every seed program.

For every compiler-core/tests/data/seeds/<name>.py: convert it with `to_tvm027`, parse it with TVM,
and write `obj.script()` to compiler-core/tests/data/seeds_tvm/<name>.py. Files TVM rejects are
reported on stderr and get no golden (the seeds directory is expected to hold none of those).

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/print_tvm.py [--seeds DIR] [--out DIR] [--check]

--check: do not write; exit 1 if any golden is missing or differs from TVM's printing (stale goldens).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

from tvm_compat import ParseFailure, parse_tvm, structural_diff, to_tvm027  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SEEDS = os.path.join(REPO, "compiler-core", "tests", "data", "seeds")
DEFAULT_OUT = os.path.join(REPO, "compiler-core", "tests", "data", "seeds_tvm")


def tvm_print(path: str) -> tuple[str, str | None]:
    """(TVM's printing of the seed, None or why TVM's printing does not parse back to the same IR)."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    obj = parse_tvm(to_tvm027(src), os.path.basename(path))
    text = obj.script()
    if not text.endswith("\n"):
        text += "\n"
    try:
        again = parse_tvm(to_tvm027(text), "reparse_" + os.path.basename(path))
        diff = structural_diff(again, obj)
        rt = None if diff is None else diff.strip().splitlines()[0]
    except ParseFailure as e:
        rt = f"TVM cannot parse its own printing: {e.message.splitlines()[0] if e.message else e.kind}"
    return text, rt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="verify goldens instead of writing them")
    args = ap.parse_args(argv)

    files = sorted(glob.glob(os.path.join(args.seeds, "*.py")))
    if not files:
        print(f"no .py files in {args.seeds}", file=sys.stderr)
        return 1
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
    failed = 0
    for path in files:
        name = os.path.basename(path)
        try:
            text, rt = tvm_print(path)
        except ParseFailure as e:
            failed += 1
            print(f"REJECTED {name}: {e.kind}: {e.message.splitlines()[0] if e.message else ''}", file=sys.stderr)
            continue
        if rt:
            print(f"note: {name}: TVM's printing does not round-trip: {rt}", file=sys.stderr)
        dst = os.path.join(args.out, name)
        if args.check:
            try:
                with open(dst, encoding="utf-8") as f:
                    old = f.read()
            except FileNotFoundError:
                old = None
            if old != text:
                failed += 1
                print(f"STALE {name}", file=sys.stderr)
            else:
                print(f"ok {name}")
        else:
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {os.path.relpath(dst, REPO)}")
    if not args.check:
        # remove goldens whose seed is gone
        for old in glob.glob(os.path.join(args.out, "*.py")):
            if not os.path.exists(os.path.join(args.seeds, os.path.basename(old))):
                os.remove(old)
                print(f"removed stale {os.path.relpath(old, REPO)}")
    print(f"print_tvm: {len(files) - failed} ok, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
