"""Schedule goldens: run each case's schedule with TVM 0.27 and record TVM's result.

A case file (compiler-core/tests/data/schedule_cases/*.py) holds, in this order:

    # <free text: what the case shows>
    <TVMScript, course dialect (tir / T.block)>
    # --- schedule
    <schedule statements using `sch`, course spelling (get_block)>
    # --- expected            <- written by --write: TVM's result, course dialect
    <TVMScript>
    # --- trace               <- written by --write: TVM's trace (print(sch.trace)), as comments
    # <lines of the apply_trace body>

or, for a schedule TVM must refuse, instead of the expected section:

    # --- error: <phrase>
    # TVM 0.27: <first line of TVM's message>   <- written by --write

where <phrase> is text that TVM's error message contains (Tessel's message must contain it too).
A deliberate deviation, a schedule TVM accepts but Tessel refuses, is marked

    # --- error (Tessel only): <phrase>
    # TVM 0.27: accepted        <- checked (and written) by this script

usage:
    schedule_cases.py [--write] [FILE...]   (default: every case file)

Without --write, checks that the recorded expectations still hold (exit 1 otherwise).
"""

from __future__ import annotations

import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from tvm_compat import parse_tvm, to_tvm027  # noqa: E402

import tvm  # noqa: E402

CASES = os.path.join(HERE, "..", "..", "compiler-core", "tests", "data", "schedule_cases")
SCHEDULE = "# --- schedule"
EXPECTED = "# --- expected"
TRACE = "# --- trace"
ERROR = "# --- error:"
TESSEL_ERROR = "# --- error (Tessel only):"


def to_course(text: str) -> str:
    """TVM 0.27's printing back to the course dialect (what Tessel parses in tests)."""
    text = text.replace("T.sblock_alloc_buffer", "T.alloc_buffer")
    text = text.replace("T.sblock_attr", "T.block_attr")
    text = text.replace("T.sblock(", "T.block(")
    text = text.replace("@T.prim_func(s_tir=True)", "@T.prim_func")
    text = text.replace("s_tir=True, ", "").replace(", s_tir=True", "")
    text = text.replace('"tirx.noalias"', '"tir.noalias"')
    text = text.replace("from tvm.script import tirx as T", "from tvm.script import tir as T")
    text = text.replace('# with T.sblock("root"):', '# with T.block("root"):')
    # TVM 0.27 spells a let binding `x: T.let[T.int32] = v`; the course
    # dialect (and Tessel's printer) `x: T.int32 = v`.
    text = re.sub(r": T\.let\[(T\.\w+)\] = ", r": \1 = ", text)
    lines = [l for l in text.splitlines() if not l.startswith("# from tvm.tirx.layout")]
    return "\n".join(lines).rstrip() + "\n"


def split_case(text: str):
    before, rest = text.split(SCHEDULE, 1)
    error = None
    if TESSEL_ERROR in rest:
        sched, err = rest.split(TESSEL_ERROR, 1)
        return before, sched.strip("\n") + "\n", None, ("tessel", err.splitlines()[0].strip())
    if EXPECTED in rest:
        sched, expected = rest.split(EXPECTED, 1)
        expected = expected.split(TRACE, 1)[0]
    elif ERROR in rest:
        sched, err = rest.split(ERROR, 1)
        error = err.splitlines()[0].strip()
        expected = None
    else:
        sched, expected = rest, None
    return before, sched.strip("\n") + "\n", expected, error


def run_tvm(before: str, sched: str):
    mod = parse_tvm(to_tvm027(before))
    if isinstance(mod, tvm.tirx.PrimFunc):
        name = "main"
        if mod.attrs is not None and "global_symbol" in mod.attrs:
            name = str(mod.attrs["global_symbol"])
        mod = tvm.IRModule({name: mod})
    sch = tvm.s_tir.Schedule(mod)
    code = sched.replace("get_block(", "get_sblock(")
    try:
        exec(code, {"sch": sch, "tvm": tvm})
    except Exception as e:  # TVM's ScheduleError, or an internal error
        return None, str(e)
    return (to_course(sch.mod.script()), trace_lines(sch)), None


def trace_lines(sch) -> str:
    """The body of TVM's `apply_trace`, one `# `-prefixed line per instruction."""
    lines = str(sch.trace).splitlines()
    body = [l.strip() for l in lines if l.startswith("  ")]
    return "".join("# " + l.replace("get_sblock(", "get_block(") + "\n" for l in body)


def first_message_line(msg: str) -> str:
    for line in msg.splitlines():
        if line.startswith("Error message:"):
            return line[len("Error message:"):].strip()
    lines = [l for l in msg.splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def main(argv):
    write = "--write" in argv
    files = [a for a in argv if not a.startswith("--")] or sorted(glob.glob(os.path.join(CASES, "*.py")))
    failed = 0
    for path in files:
        name = os.path.basename(path)
        text = open(path).read()
        before, sched, expected, error = split_case(text)
        result, msg = run_tvm(before, sched)
        if isinstance(error, tuple):
            if msg is not None:
                print(f"FAIL {name}: TVM now refuses it too: {first_message_line(msg)}")
                failed += 1
                continue
            if write:
                out = before + SCHEDULE + "\n" + sched + TESSEL_ERROR + " " + error[1] + "\n"
                out += "# TVM 0.27: accepted\n"
                open(path, "w").write(out)
            print(f"ok   {name} (Tessel-only error)")
            continue
        if error is not None:
            if msg is None:
                print(f"FAIL {name}: TVM accepted a schedule expected to fail")
                failed += 1
                continue
            if error not in msg:
                print(f"FAIL {name}: TVM's message does not contain {error!r}:\n{msg}")
                failed += 1
                continue
            if write:
                out = before + SCHEDULE + "\n" + sched + ERROR + " " + error + "\n"
                out += "# TVM 0.27: " + first_message_line(msg) + "\n"
                open(path, "w").write(out)
            print(f"ok   {name} (error)")
            continue
        if msg is not None:
            print(f"FAIL {name}: TVM refused: {first_message_line(msg)}")
            failed += 1
            continue
        result, trace = result
        if write:
            out = before + SCHEDULE + "\n" + sched + EXPECTED + "\n" + result + TRACE + "\n" + trace
            open(path, "w").write(out)
            print(f"ok   {name} (written)")
        elif expected is None or expected.strip() != result.strip():
            print(f"FAIL {name}: expected section missing or stale (run with --write)")
            failed += 1
        else:
            print(f"ok   {name}")
    print(f"schedule_cases: {len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
