"""The schedule case format (compiler-core/tests/data/schedule/<name>.py).

A case file is valid Python, in three parts separated by marker lines `# --- <kind>[: <arg>] ---`:

    # <what the case is, where it comes from>
    # target: ../seeds/seed001_10_bmm_relu_target.py    (directives: see below)
    import tvm
    from tvm.script import tir as T

    @tvm.script.ir_module
    class Module:                                         (1) the module, course dialect
        ...
    # --- tensor-intrin: tmm16 ---                        (optional, repeatable) two @T.prim_func:
    @T.prim_func                                          description, then implementation
    def tmm16_desc(...): ...
    @T.prim_func
    def tmm16_impl(...): ...
    # --- schedule ---
    block_Y = sch.get_block("Y", func_name="mm_relu")    (2) schedule calls, course API
    ...
    # --- expect-error: does not have compact dataflow ---    (3) optional, anywhere after (1)

`expect-error`: TVM must refuse the schedule with an error containing the substring; Tessel must
refuse it at the same statement, naming the primitive, and leave the IR as it was.

Directives are comment lines of the header (before the module's first code line):

* `# target: PATH` -- the scheduled module must be structurally equal to the module in PATH
  (relative to the case file; e.g. the book's `TargetModule`).
* `# values: NAME, NAME` -- record these script variables (block handles by block name, sampled
  values as integers) in `<name>.expected-values.txt`.
* `# hand-written: WHY` -- TVM 0.27 cannot produce the golden (crash, refusal of a legal course
  schedule); `<name>.expected.py` is written by hand, and WHY says how it was derived.
* `# tessel-error: SUBSTRING` -- for expect-error cases: Tessel's message must contain SUBSTRING.
* `# numerics: skip WHY` -- do not run the interpreter on this case (e.g. too large).

The Rust harness (compiler-core/tests/support/schedule_case.rs) reads the same format.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

GOLDEN_SUFFIXES = (".expected.py", ".expected-trace.py", ".expected-values.txt", ".expected-error.txt")

MARKER_RE = re.compile(r"^#\s*---\s*(?P<kind>[a-z-]+)\s*(?::\s*(?P<arg>.*?))?\s*---\s*$")
DIRECTIVE_RE = re.compile(r"^#\s*(?P<key>target|values|hand-written|tessel-error|numerics):\s*(?P<value>.*?)\s*$")


class CaseError(Exception):
    """The case file is malformed, or TVM disagrees with what the case claims."""


@dataclass
class Case:
    name: str
    path: str
    text: str
    module_src: str
    schedule_src: str
    schedule_line: int  # 1-based line of the case file where schedule_src starts
    intrinsics: list[tuple[str, str]] = field(default_factory=list)
    expect_error: str | None = None
    target: str | None = None
    values: list[str] = field(default_factory=list)
    hand_written: str | None = None
    tessel_error: str | None = None
    numerics: str | None = None


def parse_case(text: str, path: str) -> Case:
    name = os.path.basename(path)
    if name.endswith(".py"):
        name = name[:-3]
    lines = text.split("\n")
    sections: list[tuple[str, str | None, int, list[str]]] = [("module", None, 1, [])]
    expect_error = None
    for i, line in enumerate(lines, start=1):
        m = MARKER_RE.match(line.strip())
        if m:
            kind, arg = m.group("kind"), m.group("arg")
            if kind == "expect-error":
                if not arg:
                    raise CaseError(f"{path}:{i}: `expect-error` needs a substring of TVM's message")
                if expect_error is not None:
                    raise CaseError(f"{path}:{i}: a second `expect-error` marker")
                expect_error = arg
                continue
            if kind not in ("schedule", "tensor-intrin"):
                raise CaseError(f"{path}:{i}: unknown marker `{kind}`")
            if kind == "tensor-intrin" and not arg:
                raise CaseError(f"{path}:{i}: `tensor-intrin` needs the intrinsic's name")
            sections.append((kind, arg, i + 1, []))
            continue
        sections[-1][3].append(line)
    kinds = [s[0] for s in sections]
    if kinds.count("schedule") != 1:
        raise CaseError(f"{path}: expected exactly one `# --- schedule ---` marker")
    if kinds[-1] != "schedule":
        raise CaseError(f"{path}: the schedule must be the last section")
    case = Case(
        name=name,
        path=os.path.abspath(path),
        text=text,
        module_src="\n".join(sections[0][3]),
        schedule_src="\n".join(sections[-1][3]),
        schedule_line=sections[-1][2],
        intrinsics=[(arg, "\n".join(body)) for kind, arg, _, body in sections if kind == "tensor-intrin"],
        expect_error=expect_error,
    )
    for line in sections[0][3]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break  # directives live in the header comment
        m = DIRECTIVE_RE.match(stripped)
        if not m:
            continue
        key, value = m.group("key"), m.group("value")
        if key == "target":
            case.target = value
        elif key == "values":
            case.values = [v.strip() for v in value.split(",") if v.strip()]
        elif key == "hand-written":
            case.hand_written = value
        elif key == "tessel-error":
            case.tessel_error = value
        elif key == "numerics":
            case.numerics = value
    if case.hand_written is not None and case.expect_error is not None:
        raise CaseError(f"{path}: a hand-written case cannot expect an error")
    return case


def load_case(path: str) -> Case:
    with open(path, encoding="utf-8") as f:
        return parse_case(f.read(), path)
