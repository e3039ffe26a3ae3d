#!/usr/bin/env python3
"""Write TVM 0.27's output of the graph pass pipeline for every pass test module.

For every compiler-core/tests/data/graph_passes/in/<name>.py (one IRModule each), run TVM's passes
in the order of the MLC book's chapter 7 and write the printing (`.script()`) after each stage to
compiler-core/tests/data/graph_passes/out/<name>.<stage>.py:

    legalize   relax.transform.LegalizeOps()
    fuse       relax.transform.AnnotateTIROpPattern() then relax.transform.FuseOps()
    fusetir    relax.transform.FuseTIR()
    dce        relax.transform.DeadCodeElimination(["main"])

BindParams is not part of the printed pipeline (its constants print as `metadata[...]`, which neither
side parses back); `tests/lower_te_graph/graph_passes.rs` checks it numerically.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/graph_pass_goldens.py [--check]

--check: do not write; exit 1 if a golden is missing or stale.
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

import tvm  # noqa: E402
from tvm import relax  # noqa: E402

from graph_compat import parse_graph_all, to_tvm027_graph  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
BASE = os.path.join(REPO, "compiler-core", "tests", "data", "graph_passes")
SRC = os.path.join(BASE, "in")
OUT = os.path.join(BASE, "out")


def stages(mod):
    mod = relax.transform.LegalizeOps()(mod)
    yield "legalize", mod
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FuseOps()(mod)
    yield "fuse", mod
    mod = relax.transform.FuseTIR()(mod)
    yield "fusetir", mod
    mod = relax.transform.DeadCodeElimination(["main"])(mod)
    yield "dce", mod


def outputs(path: str) -> dict[str, str]:
    src = open(path, encoding="utf-8").read()
    objs = parse_graph_all(to_tvm027_graph(src), os.path.basename(path))
    mods = [o for o in objs.values() if isinstance(o, tvm.IRModule)]
    if len(mods) != 1:
        raise SystemExit(f"{path}: expected one IRModule, found {len(mods)}")
    stem = os.path.splitext(os.path.basename(path))[0]
    return {f"{stem}.{st}.py": m.script().rstrip("\n") + "\n" for st, m in stages(mods[0])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    bad = 0
    os.makedirs(OUT, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(SRC, "*.py"))):
        for name, text in outputs(path).items():
            dst = os.path.join(OUT, name)
            old = open(dst, encoding="utf-8").read() if os.path.exists(dst) else None
            if old == text:
                continue
            if args.check:
                print(f"stale: {name}")
                bad += 1
            else:
                with open(dst, "w", encoding="utf-8") as f:
                    f.write(text)
                print(f"wrote {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
