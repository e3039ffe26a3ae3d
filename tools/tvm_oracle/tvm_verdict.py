#!/usr/bin/env python3
"""What does TVM 0.27 say about a TVMScript file? (used to record verdicts for verify_fail/)

For each FILE (course dialect or 0.27 spelling; converted with `to_tvm027` first) run the stages
TVM has and stop at the first one that rejects the program:

  parse     TVMScript parser (includes the well-formedness check the decorator runs)
  schedule  `tvm.s_tir.Schedule(mod)` (block/loop binding verification, sref tree)
  compile   `tvm.compile(mod, target="llvm")` (lowering + codegen)

Prints one line per file: `<file>: accepted` or `<file>: rejected at <stage>: <first line of TVM's
message> [at `<source text TVM underlined>`]` (add -v for the full message).

--write: (re)write the verdict into each FILE as a `# TVM 0.27: ...` comment line, placed after the
`# expect: ...` line (used for compiler-core/tests/data/verify_fail/).

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/tvm_verdict.py [-v] [--no-compile] [--write] FILE...
"""

from __future__ import annotations

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

import tvm  # noqa: E402

from tvm_compat import ParseFailure, parse_tvm, to_tvm027  # noqa: E402


def _as_module(obj):
    if isinstance(obj, tvm.ir.IRModule):
        return obj
    return tvm.IRModule({"main": obj})


def verdict(path: str, do_compile: bool = True) -> tuple[str, str | None, str]:
    """(verdict, stage, message): verdict is 'accepted' or 'rejected'."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    try:
        obj = parse_tvm(to_tvm027(src), os.path.basename(path))
    except ParseFailure as e:
        return "rejected", "parse", f"{e.kind}: {e.message}"
    mod = _as_module(obj)
    try:
        tvm.s_tir.Schedule(mod)
    except Exception as e:  # noqa: BLE001
        return "rejected", "schedule", f"{type(e).__name__}: {e}"
    if do_compile:
        try:
            tvm.compile(mod, target="llvm")
        except Exception as e:  # noqa: BLE001
            return "rejected", "compile", f"{type(e).__name__}: {e}"
    return "accepted", None, ""


def _first_line(msg: str) -> str:
    for line in msg.splitlines():
        s = line.strip()
        if s and not s.startswith("Traceback"):
            return s
    return msg.strip()


def underlined(msg: str) -> str | None:
    """The source text TVM's diagnostic underlines with ^^^ (first such snippet), if any."""
    lines = msg.splitlines()
    for k in range(1, len(lines)):
        m = re.match(r"^(\s*\|\s?)(\s*)(\^+)\s*$", lines[k])
        if not m:
            continue
        src = re.match(r"^\s*\d+\s*\|\s?(.*)$", lines[k - 1])
        if not src:
            continue
        start = len(m.group(2))
        # both lines share the `NN | ` prefix width; align on the text after the bar
        text = src.group(1)
        caret_col = len(m.group(1)) + start
        src_col = lines[k - 1].index("|") + 1 + (1 if lines[k - 1][lines[k - 1].index("|") + 1 : lines[k - 1].index("|") + 2] == " " else 0)
        off = caret_col - src_col
        seg = lines[k - 1][src_col + off : src_col + off + len(m.group(3))]
        return seg.strip() or text.strip()
    return None


def summary(v: str, stage: str | None, msg: str) -> str:
    if v == "accepted":
        return "accepted (parse, s_tir Schedule construction and llvm compile all succeed)"
    # a SyntaxError from Python carries the temp file name; keep only the message proper
    first = re.sub(r"\s*\(_tessel_tvm_src_[^)]*\)", "", _first_line(msg))
    # the well-formedness failure puts the real reason on a later line
    detail = ""
    for line in msg.splitlines():
        if "Well-formedness check failed:" in line or "TIR is ill-formed:" in line:
            detail = " -- " + line.strip().replace("Traceback: ", "")
            break
    at = underlined(msg)
    at_s = f" [underlined: `{at}`]" if at else ""
    return f"rejected at {stage}: {first}{detail}{at_s}"


def write_verdict(path: str, line: str) -> None:
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    lines = [l for l in lines if not l.startswith("# TVM 0.27:")]
    at = next((i for i, l in enumerate(lines) if l.startswith("# expect:")), None)
    # keep continuation lines of the expect comment together
    if at is not None:
        while at + 1 < len(lines) and lines[at + 1].startswith("#   "):
            at += 1
        lines.insert(at + 1, f"# TVM 0.27: {line}")
    else:
        lines.insert(0, f"# TVM 0.27: {line}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--write", action="store_true", help="record the verdict in each file")
    args = ap.parse_args(argv)
    for path in args.files:
        v, stage, msg = verdict(path, not args.no_compile)
        name = os.path.basename(path)
        line = summary(v, stage, msg)
        print(f"{name}: {line}")
        if args.verbose and v != "accepted":
            print("    " + msg.replace("\n", "\n    "))
        if args.write:
            write_verdict(path, line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
