#!/usr/bin/env python3
"""Write TVM 0.27's own printing of every graph test module.

For every compiler-core/tests/data/graph/<name>.py: convert it with `to_tvm027_graph`, parse it with
TVM, and write the printing (`.script()`) of everything it defines (IRModules, bare `@R.function`s,
in definition order, separated by a blank line) to compiler-core/tests/data/graph_tvm/<name>.py.

A file whose header has an `# expect: ...` line must be rejected by Tessel; TVM's verdict is printed
(TVM rejects those too) and no golden is written.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/graph_print.py [--check]

--check: do not write; exit 1 if a golden is missing or stale, or a file TVM should accept is rejected.
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

from graph_compat import graph_structural_diff, parse_graph_all, to_tvm027_graph  # noqa: E402
from tvm_compat import ParseFailure  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.join(REPO, "compiler-core", "tests", "data", "graph")
OUT = os.path.join(REPO, "compiler-core", "tests", "data", "graph_tvm")


def expects_failure(src: str) -> bool:
    return any(line.startswith("# expect:") for line in src.splitlines())


def tvm_print(path: str) -> tuple[str, str | None]:
    """TVM's printing of the file, and None or why it does not parse back to the same IR."""
    src = open(path, encoding="utf-8").read()
    objs = parse_graph_all(to_tvm027_graph(src), os.path.basename(path))
    texts = [o.script() for o in objs.values()]
    text = "\n\n".join(t.rstrip("\n") for t in texts) + "\n"
    rt = None
    try:
        again = parse_graph_all(to_tvm027_graph(text), "reparse_" + os.path.basename(path))
        for (a, b) in zip(again.values(), objs.values()):
            d = graph_structural_diff(a, b)
            if d:
                rt = d.splitlines()[0]
                break
    except ParseFailure as e:
        rt = f"TVM cannot parse its own printing: {e.message.splitlines()[0] if e.message else e.kind}"
    return text, rt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    files = sorted(glob.glob(os.path.join(SRC, "*.py")))
    if not args.check:
        os.makedirs(OUT, exist_ok=True)
    bad = 0
    for path in files:
        name = os.path.basename(path)
        src = open(path, encoding="utf-8").read()
        try:
            text, rt = tvm_print(path)
        except ParseFailure as e:
            first = e.message.splitlines()[0] if e.message else e.kind
            if expects_failure(src):
                print(f"rejected (expected) {name}: {first}")
            else:
                bad += 1
                print(f"REJECTED {name}: {first}", file=sys.stderr)
            continue
        if expects_failure(src):
            bad += 1
            print(f"ACCEPTED {name}, which has an `# expect:` line", file=sys.stderr)
            continue
        if rt:
            print(f"note: {name}: TVM's printing does not round-trip: {rt}")
        dst = os.path.join(OUT, name)
        if args.check:
            old = open(dst, encoding="utf-8").read() if os.path.exists(dst) else None
            if old != text:
                bad += 1
                print(f"STALE {name}", file=sys.stderr)
            continue
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
