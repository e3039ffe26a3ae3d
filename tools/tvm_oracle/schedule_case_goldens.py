#!/usr/bin/env python3
"""Schedule goldens: run every schedule case through Apache TVM 0.27 and record what TVM does.

A case is `compiler-core/tests/data/schedule/<name>.py` (format: see `schedule_case.py` and
`compiler-core/tests/data/schedule/README.md`): a TVMScript module in the course dialect, then a
`# --- schedule ---` marker and schedule calls in the course's API (`sch.get_block`, `sch.split`…),
optionally `# --- expect-error: <substring> ---`.

For each case this script converts the module with `to_tvm027`, builds `tvm.s_tir.Schedule(mod)`
behind a small proxy that maps the course's names onto 0.27's (`get_block` -> `get_sblock`), runs
the schedule text as Python and writes, next to the case:

* `<name>.expected.py`        -- `sch.mod.script()`, TVM's printing of the result;
* `<name>.expected-trace.py`  -- `str(sch.trace)`, the trace TVM recorded;
* `<name>.expected-values.txt` -- only when the case has `# values: a, b`: the values of those
  script variables (block handles as block names, sampled values as integers);
* `<name>.expected-error.txt` -- for `expect-error` cases: the failing statement (`line N: text`)
  and TVM's error text. The case fails if TVM accepts the schedule or its error does not contain
  the expected substring.

Cases marked `# hand-written: <why>` (TVM 0.27 crashes or refuses a legal course schedule) are not
run: their `.expected.py` is written by hand, starts with `# hand-written:` note lines, and must be
TVM's canonical printing of itself (TVM parses it and prints it back unchanged). `--probe` runs them
in a child process anyway and reports what TVM does now (e.g. whether it still segfaults).

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/schedule_case_goldens.py [--check] [--probe] [NAME...]

--check: write nothing; exit 1 if a golden is missing, differs from what TVM produces now, or has no
case any more. With NAMEs only those cases are run (and stale files are not looked for).
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

import tvm  # noqa: E402

from schedule_case import GOLDEN_SUFFIXES, Case, CaseError, load_case  # noqa: E402
from tvm_compat import ParseFailure, parse_tvm, parse_tvm_all, structural_diff, to_tvm027  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
CASE_DIR = os.path.join(REPO, "compiler-core", "tests", "data", "schedule")


class CourseSchedule:
    """`tvm.s_tir.Schedule` with the course's spelling.

    The course (TVM <= 0.20) calls `sch.get_block`; TVM 0.27 calls it `get_sblock`. A 0.27 Schedule
    is a TVM object whose attributes cannot be assigned, so the shim is a proxy: every other
    attribute (`split`, `mod`, `trace`, ...) is the real schedule's, and handles pass through
    unchanged.
    """

    _ALIASES = {"get_block": "get_sblock"}

    def __init__(self, sch):
        object.__setattr__(self, "_sch", sch)

    def __getattr__(self, name):
        return getattr(self._sch, self._ALIASES.get(name, name))


class TvmFailure(Exception):
    """TVM raised while running the schedule text."""

    def __init__(self, message: str, line: int | None, line_text: str):
        super().__init__(message)
        self.message = message
        self.line = line
        self.line_text = line_text


def _register_intrinsics(case: Case) -> None:
    for name, src in case.intrinsics:
        funcs = parse_tvm_all(to_tvm027(src), f"{case.name}_{name}")
        if len(funcs) != 2:
            raise CaseError(
                f"tensor-intrin `{name}` must define exactly two functions (description, then "
                f"implementation); found {', '.join(funcs) or 'none'}"
            )
        desc, impl = funcs.values()
        tvm.s_tir.TensorIntrin.register(name, desc, impl, override=True)


def run_in_tvm(case: Case):
    """Run `case` in TVM. Returns the Schedule and the script's namespace, or raises TvmFailure /
    CaseError."""
    try:
        mod = parse_tvm(to_tvm027(case.module_src), case.name)
    except ParseFailure as e:
        raise CaseError(f"TVM cannot parse the module: {e.kind}: {e.message}") from None
    if not isinstance(mod, tvm.ir.IRModule):
        raise CaseError("the module section must define an IRModule (`@tvm.script.ir_module class ...`)")
    _register_intrinsics(case)
    sch = tvm.s_tir.Schedule(mod)
    ns = {"sch": CourseSchedule(sch), "tvm": tvm, "__name__": f"schedule_case_{case.name}"}
    # Pad with blank lines so that line numbers in tracebacks are line numbers of the case file.
    code = compile("\n" * (case.schedule_line - 1) + case.schedule_src, case.path, "exec")
    try:
        exec(code, ns)  # noqa: S102 - the schedule text is the case's own code
        if callable(ns.get("apply_trace")):
            # A printed trace (`def apply_trace(sch): ...`) is run on the schedule, as Tessel does.
            ns["apply_trace"](ns["sch"])
    except Exception as e:  # noqa: BLE001 - TVM raises many kinds
        line = None
        for frame, lineno in traceback.walk_tb(e.__traceback__):
            if frame.f_code.co_filename == case.path:
                line = lineno
        lines = case.text.splitlines()
        text = lines[line - 1].strip() if line and line <= len(lines) else ""
        raise TvmFailure(f"{type(e).__name__}: {e}", line, text) from None
    return sch, ns


def _render_value(sch, v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_render_value(sch, x) for x in v) + "]"
    if isinstance(v, tvm.s_tir.schedule.SBlockRV):
        return '"' + sch.get(v).name_hint + '"'
    if isinstance(v, tvm.s_tir.schedule.LoopRV):
        raise CaseError("`# values:` cannot show loop handles (they have no name both tools agree on)")
    if isinstance(v, (tvm.tirx.Var, tvm.tirx.IntImm)):  # an ExprRV
        return str(int(sch.get(v)))
    if isinstance(v, (int, bool, str)) or v is None:
        return repr(v)
    raise CaseError(f"`# values:` cannot show a {type(v).__name__}")


# Instructions whose printing is broken in TVM 0.27: `str(trace)` falls back to `Trace(<address>)`
# because the kind's `AsPython` declares a `LoopRV` parameter where the printer passes the input's
# name. Their line is written from the trace's JSON (which TVM does produce) in the form the kind
# means to print: `out = sch.<method>(<param>=<input>, ...)`.
BROKEN_AS_PYTHON = {"DecomposePadding": ("decompose_padding", ("block", "loop"))}


def trace_text(trace) -> str:
    """`str(trace)`, or, where TVM cannot print an instruction of the trace, TVM's printing of the
    instructions before it plus that instruction written from the JSON (it must be the last)."""
    text = str(trace)
    if not text.startswith("Trace("):
        return text
    insts = list(trace.insts)
    broken = [k for k, inst in enumerate(insts) if inst.kind.name in BROKEN_AS_PYTHON]
    if not broken or broken[0] != len(insts) - 1:
        raise CaseError(f"TVM cannot print the trace and Tessel's goldens cannot write it:\n{text}")
    k = broken[0]
    decisions = {inst: d for inst, d in trace.decisions.items() if inst.same_as(insts[k]) is False}
    prefix = str(tvm.s_tir.schedule.Trace(insts[:k], decisions)).rstrip("\n")
    kind, inputs, _attrs, outputs = trace.as_json()[0][k]
    method, params = BROKEN_AS_PYTHON[kind]
    call = ", ".join(f"{p}={v}" for p, v in zip(params, inputs))
    return prefix + f"\n  {', '.join(outputs)} = sch.{method}({call})\n"


def goldens_for(case: Case) -> dict[str, str]:
    """The golden files of `case`, by suffix. Raises CaseError when TVM disagrees with the case."""
    if case.hand_written is not None:
        return {}
    try:
        sch, ns = run_in_tvm(case)
    except TvmFailure as f:
        if case.expect_error is None:
            raise CaseError(f"TVM refuses the schedule at line {f.line} (`{f.line_text}`):\n{f.message}") from None
        if case.expect_error not in f.message:
            raise CaseError(
                f"TVM's error does not contain `{case.expect_error}`:\n{f.message}"
            ) from None
        return {".expected-error.txt": f"line {f.line}: {f.line_text}\n{f.message.rstrip()}\n"}
    if case.expect_error is not None:
        raise CaseError(f"TVM accepts the schedule, but the case expects an error `{case.expect_error}`")
    out = {
        ".expected.py": sch.mod.script().rstrip("\n") + "\n",
        ".expected-trace.py": trace_text(sch.trace).rstrip("\n") + "\n",
    }
    if case.values:
        lines = []
        for name in case.values:
            if name not in ns:
                raise CaseError(f"`# values:` names `{name}`, which the schedule does not define")
            lines.append(f"{name} = {_render_value(sch, ns[name])}")
        out[".expected-values.txt"] = "\n".join(lines) + "\n"
    if case.target is not None:
        target_path = os.path.normpath(os.path.join(os.path.dirname(case.path), case.target))
        with open(target_path, encoding="utf-8") as f:
            target = parse_tvm(to_tvm027(f.read()), "target_" + case.name)
        diff = structural_diff(sch.mod, target)
        if diff is not None:
            raise CaseError(f"TVM's result is not structurally equal to the target {case.target}:\n{diff}")
    return out


HAND_NOTE = "# hand-written:"


def strip_hand_note(text: str) -> str:
    """A hand-written golden without its leading `# hand-written:` note lines."""
    lines = text.split("\n")
    while lines and lines[0].startswith(HAND_NOTE):
        lines.pop(0)
    return "\n".join(lines)


def check_hand_written(path: str) -> str | None:
    """A hand-written golden must start with a note and be in TVM's canonical printing: TVM parses
    it and prints it back unchanged."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.startswith(HAND_NOTE):
        return f"{os.path.basename(path)} must start with `{HAND_NOTE}` lines saying how it was derived"
    body = strip_hand_note(text)
    try:
        printed = parse_tvm(to_tvm027(body), os.path.basename(path)).script().rstrip("\n") + "\n"
    except ParseFailure as e:
        return f"TVM cannot parse {os.path.basename(path)}: {e.kind}: {e.message}"
    if printed != body:
        return f"{os.path.basename(path)} is not TVM's canonical printing of itself; TVM prints:\n{printed}"
    return None


def probe(case: Case) -> str:
    """Run a hand-written case in a child process; say what TVM does with it now."""
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import schedule_case_goldens as g\n"
        "from schedule_case import load_case\n"
        "c = load_case(%r)\n"
        "c.hand_written = None\n"
        "try:\n"
        "    g.run_in_tvm(c)\n"
        "    print('TVM runs it now')\n"
        "except g.TvmFailure as f:\n"
        "    print(f'TVM refuses at line {f.line}: ' + f.message.strip().splitlines()[-1])\n"
    ) % (HERE, case.path)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    if p.returncode < 0:
        return f"TVM crashes (signal {-p.returncode})"
    if p.returncode != 0:
        return f"exit status {p.returncode}: " + (p.stderr.strip().splitlines() or [""])[-1]
    return p.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=CASE_DIR)
    ap.add_argument("--check", action="store_true", help="verify goldens instead of writing them")
    ap.add_argument("--probe", action="store_true", help="also run hand-written cases (in a child process)")
    ap.add_argument("names", nargs="*", help="case names (default: all)")
    args = ap.parse_args(argv)

    all_paths = sorted(
        p for p in glob.glob(os.path.join(args.dir, "*.py")) if not any(p.endswith(s) for s in GOLDEN_SUFFIXES)
    )
    paths = all_paths
    if args.names:
        wanted = {n[:-3] if n.endswith(".py") else n for n in args.names}
        paths = [p for p in all_paths if os.path.basename(p)[:-3] in wanted]
        missing = wanted - {os.path.basename(p)[:-3] for p in paths}
        if missing:
            print(f"no such case: {', '.join(sorted(missing))}", file=sys.stderr)
            return 1

    failed = 0
    written = 0
    expected_files: set[str] = set()
    for path in paths:
        name = os.path.basename(path)[:-3]
        try:
            case = load_case(path)
            files = goldens_for(case)
        except (CaseError, ParseFailure) as e:
            failed += 1
            print(f"FAIL {name}: {e}", file=sys.stderr)
            continue
        if case.hand_written is not None:
            hand = os.path.join(args.dir, name + ".expected.py")
            expected_files.add(hand)
            note = f"hand-written ({case.hand_written})"
            if not os.path.exists(hand):
                failed += 1
                print(f"FAIL {name}: hand-written case without {name}.expected.py", file=sys.stderr)
                continue
            problem = check_hand_written(hand)
            if problem:
                failed += 1
                print(f"FAIL {name}: {problem}", file=sys.stderr)
                continue
            if args.probe:
                note += f"; probe: {probe(case)}"
            print(f"ok   {name}: {note}")
            continue
        for suffix, text in files.items():
            dst = os.path.join(args.dir, name + suffix)
            expected_files.add(dst)
            old = None
            if os.path.exists(dst):
                with open(dst, encoding="utf-8") as f:
                    old = f.read()
            if old == text:
                continue
            if args.check:
                failed += 1
                print(f"STALE {name}{suffix}: {'missing' if old is None else 'differs from TVM now'}", file=sys.stderr)
            else:
                with open(dst, "w", encoding="utf-8") as f:
                    f.write(text)
                written += 1
        kind = "error" if case.expect_error is not None else "ok"
        print(f"{'ok  ' if kind == 'ok' else 'err '} {name}")

    if not args.names:
        # Goldens whose case is gone (or whose kind changed: an error golden of a case that now passes).
        for p in sorted(glob.glob(os.path.join(args.dir, "*"))):
            if any(p.endswith(s) for s in GOLDEN_SUFFIXES) and p not in expected_files:
                if args.check:
                    failed += 1
                    print(f"STALE {os.path.basename(p)}: no case produces it", file=sys.stderr)
                else:
                    os.remove(p)
                    print(f"removed {os.path.basename(p)}")

    verb = "checked" if args.check else f"wrote {written} file(s) for"
    print(f"schedule goldens: {verb} {len(paths)} case(s), {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
