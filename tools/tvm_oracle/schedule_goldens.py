#!/usr/bin/env python3
"""Fill in TVM 0.27's result of schedule cases (compiler-core/tests/data/schedule_cache/*.txt).

A case file has sections introduced by `### <name>` lines:

    ### before
    <course-dialect TVMScript: one @T.prim_func named main, or a module>
    ### schedule
    <schedule calls, course spelling: sch.get_block(...)>
    ### after
    <TVM 0.27's `sch.mod["main"].script()`, converted to the course dialect>
    ### trace
    <TVM 0.27's `print(sch.trace)`, converted to the course spelling (tir, get_block)>

This script runs `before` + `schedule` through TVM (the schedule with `get_block` spelled
`get_sblock`) and rewrites `after` and `trace`. Tessel's test (tests/schedule/schedule_cache.rs) runs the
same case and must print exactly `after` and `trace`.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/schedule_goldens.py [--check] [FILE...]

--check: do not write; exit 1 if a file's `after`/`trace` differ from TVM's.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

import tvm  # noqa: E402
from tvm_compat import parse_tvm, to_tvm027  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_DIR = os.path.join(REPO, "compiler-core", "tests", "data", "schedule_cache")

SECTION_RE = re.compile(r"^### (\w+)[ \t]*$", re.M)


def split_sections(text: str) -> tuple[str, dict[str, str], list[str]]:
    """(header before the first section, {name: body}, section order)."""
    parts = SECTION_RE.split(text)
    header = parts[0]
    sections: dict[str, str] = {}
    order: list[str] = []
    for name, body in zip(parts[1::2], parts[2::2]):
        sections[name] = body.strip("\n") + "\n"
        order.append(name)
    return header, sections, order


def to_course(text: str) -> str:
    """TVM 0.27's printing -> the course dialect (what Tessel prints with Dialect::Block)."""
    return (
        text.replace("# from tvm.script import tirx as T", "# from tvm.script import tir as T")
        .replace("# from tvm.tirx.layout import Axis\n", "")
        .replace("@T.prim_func(s_tir=True)", "@T.prim_func")
        .replace("T.sblock_alloc_buffer(", "T.alloc_buffer(")
        .replace("T.sblock(", "T.block(")
        .replace("T.sblock_attr(", "T.block_attr(")
        .replace('"tirx.noalias"', '"tir.noalias"')
    )


def trace_to_course(text: str) -> str:
    return (
        text.replace("# from tvm import s_tir", "# from tvm import tir")
        .replace("sch: s_tir.Schedule", "sch: tir.Schedule")
        .replace("sch.get_sblock(", "sch.get_block(")
    )


def run_case(before: str, schedule: str) -> tuple[str, str]:
    mod = parse_tvm(to_tvm027(before))
    if not isinstance(mod, tvm.IRModule):
        mod = tvm.IRModule({"main": mod})
    sch = tvm.s_tir.Schedule(mod)
    env = {"sch": sch}
    exec(schedule.replace("sch.get_block(", "sch.get_sblock("), env)
    after = to_course(sch.mod["main"].script())
    trace = trace_to_course(str(sch.trace))
    return after.rstrip("\n") + "\n", trace.rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    files = args.files or sorted(glob.glob(os.path.join(DEFAULT_DIR, "*.txt")))
    bad = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        header, sections, order = split_sections(text)
        try:
            after, trace = run_case(sections["before"], sections["schedule"])
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"{os.path.basename(path)}: TVM failed: {type(e).__name__}: {str(e)[-400:]}", file=sys.stderr)
            bad += 1
            continue
        if args.check:
            if sections.get("after") != after or sections.get("trace") != trace:
                print(f"{os.path.basename(path)}: stale", file=sys.stderr)
                bad += 1
            continue
        sections["after"] = after
        sections["trace"] = trace
        out = header
        for name in ["before", "schedule", "after", "trace"] + [n for n in order if n not in ("before", "schedule", "after", "trace")]:
            if name in sections:
                out += f"### {name}\n{sections[name]}"
        with open(path, "w", encoding="utf-8") as f:
            f.write(out)
        print(f"{os.path.basename(path)}: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
