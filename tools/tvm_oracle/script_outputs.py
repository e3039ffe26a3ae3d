#!/usr/bin/env python3
"""Expected outputs of Tessel's script-interpreter tests, from real CPython 3.11 + NumPy 2.4 + TVM 0.27.

For every `*.py` in `compiler-core/tests/data/script_lang/` (plain Python and NumPy) and
`compiler-core/tests/data/scripts/` (the MLC course's cells), runs the script the way the Rust test
harness runs it in Tessel and writes the output next to it as `<name>.out`:

* A script containing `# %%` (or `# In[N]:`) marker lines is a notebook: each cell runs in turn in one
  namespace and, like IPython, the value of a cell's last expression is displayed (classes as
  `module.qualname`, `IPython.display.Code`/`HTML` objects as their text, anything else as `repr`).
  Without markers the file runs as one script.
* stdout and stderr go to one stream, in order. The first uncaught exception ends the run; its
  traceback is printed like CPython does, keeping only the script's own frames (Tessel has no
  frames inside NumPy or TVM), with the script's file name.
* `IPython` is not installed in the venv: a small stand-in provides `IPython.display.Code`, `HTML`,
  `Markdown` and `display` (Tessel's builtin `display` exists in both).

Course scripts (`scripts/`) need TVM 0.27 spellings, applied on the TVM side only:

* the TVMScript text goes through `tvm_compat.to_tvm027` (`tir` → `tirx`, `T.block` → `T.sblock`,
  `@T.prim_func` → `@T.prim_func(s_tir=True)`, …); the `from __future__ import annotations` line it
  prepends is dropped so that line numbers stay those of the script;
* `tvm.tir.Schedule` (gone in 0.27) is a wrapper over `tvm.s_tir.Schedule` whose type prints as
  `tvm.tir.schedule.schedule.Schedule`, whose `get_block` is `get_sblock`, whose handles print as
  `tir.BlockRV` / `tir.LoopRV` and whose trace prints in the `tir` spelling (`# from tvm import
  tir`, `sch.get_block(`) — what Tessel prints for a `tvm.tir.Schedule`;
* `tvm.tir.TensorIntrin` is `tvm.s_tir.TensorIntrin`;
* `tvm.nd.array` / `tvm.nd.empty` are `tvm.runtime.tensor` / `tvm.runtime.empty`;
* `tvm.device("llvm", 0)` is `tvm.device("cpu", 0)`;
* `relax.TensorStructInfo` is `relax.TensorType`, `expr.struct_info` is `expr.ty`, `tvm.register_func` is
  `tvm.register_global_func`;
* Python warnings (TVM's "install Pygments" notice on `show()`) are silenced, and `pygments` is
  hidden even where the venv has it, so `show()` prints plain text (no terminal colours).

Timings (`time_evaluator`) and sampled schedule decisions differ between runs by nature; the Rust
harness (and `--check`) masks them where a script's header asks for it: `# tessel-test: mask-after
TEXT` (numbers after TEXT on its lines), `# tessel-test: mask-between START END`.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/script_outputs.py            # rewrite all .out files
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/script_outputs.py FILE.py ... # just these
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/script_outputs.py --check     # exit 1 if an .out is stale
"""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import tempfile
import traceback
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "compiler-core", "tests", "data")
DIRS = [os.path.join(DATA, "script_lang"), os.path.join(DATA, "scripts")]
VENV_PY = "/root/.cache/tessel-tvm-venv/bin/python"


def notebook_cells(src: str) -> list[str]:
    """Same split as `compiler_core::script::notebook_cells`: cells padded to keep line numbers."""
    cells = [""]
    for line_no, line in enumerate(src.splitlines(keepends=True)):
        t = line.lstrip()
        if t.startswith("# %%") or t.startswith("#%%") or t.startswith("# In["):
            cells.append("\n" * (line_no + 1))
        else:
            cells[-1] += line
    return [c for c in cells if c.strip()]


def is_notebook(src: str) -> bool:
    return any(
        l.lstrip().startswith(("# %%", "#%%", "# In[")) for l in src.splitlines()
    )


# ---------------------------------------------------------------------------------------------
# Stand-ins


def install_ipython() -> None:
    ipy = types.ModuleType("IPython")
    disp = types.ModuleType("IPython.display")

    class _Display:
        kind = "Display"

        def __init__(self, data=None, url=None, filename=None, language=None, **_kw):
            self.data = "" if data is None else str(data)

        def __repr__(self):
            return f"<IPython.core.display.{self.kind} object>"

    class Code(_Display):
        kind = "Code"

    class HTML(_Display):
        kind = "HTML"

    class Markdown(_Display):
        kind = "Markdown"

    def display(*objs, **_kw):
        for o in objs:
            display_value(o)

    disp.Code, disp.HTML, disp.Markdown, disp.display = Code, HTML, Markdown, display
    disp._Display = _Display
    ipy.display = disp
    ipy.get_ipython = lambda: None
    sys.modules["IPython"] = ipy
    sys.modules["IPython.display"] = disp


def display_value(v) -> None:
    """IPython's display of a value, as Tessel reproduces it."""
    if v is None:
        return
    disp = sys.modules.get("IPython.display")
    if disp is not None and isinstance(v, disp._Display):
        print(v.data.rstrip("\n"))
    elif isinstance(v, type):
        mod = v.__module__
        print(v.__qualname__ if mod == "builtins" else f"{mod}.{v.__qualname__}")
    else:
        print(repr(v))


def install_tvm_shims() -> None:
    import tvm
    from tvm import s_tir

    def tir_text(s: str) -> str:
        return (
            s.replace("# from tvm import s_tir", "# from tvm import tir")
            .replace("sch: s_tir.Schedule", "sch: tir.Schedule")
            .replace("sch.get_sblock(", "sch.get_block(")
        )

    class Trace:
        def __init__(self, t):
            self._t = t

        def __str__(self):
            return tir_text(str(self._t))

        __repr__ = __str__

        def show(self, *_a, **_k):
            print(str(self))

    class RV:
        def __init__(self, rv, name):
            self._rv, self._name = rv, name

        def __repr__(self):
            return self._name

        __str__ = __repr__

    def wrap(x):
        if isinstance(x, list):
            return [wrap(i) for i in x]
        if isinstance(x, s_tir.schedule.SBlockRV):
            return RV(x, "tir.BlockRV")
        if isinstance(x, s_tir.schedule.LoopRV):
            return RV(x, "tir.LoopRV")
        return x

    def unwrap(x):
        if isinstance(x, RV):
            return x._rv
        if isinstance(x, (list, tuple)):
            return type(x)(unwrap(i) for i in x)
        return x

    class Schedule:
        def __init__(self, mod, *args, **kwargs):
            self._s = s_tir.Schedule(mod, *args, **kwargs)

        @property
        def trace(self):
            return Trace(self._s.trace)

        @property
        def mod(self):
            return self._s.mod

        def copy(self):
            c = Schedule.__new__(Schedule)
            c._s = self._s.copy()
            return c

        def get_block(self, *a, **k):
            return wrap(self._s.get_sblock(*unwrap(a), **{n: unwrap(v) for n, v in k.items()}))

        def __getattr__(self, name):
            attr = getattr(self._s, name)
            if not callable(attr):
                return attr

            def call(*a, **k):
                return wrap(attr(*unwrap(a), **{n: unwrap(v) for n, v in k.items()}))

            return call

        def __repr__(self):
            return "tir.Schedule"

    Schedule.__module__ = "tvm.tir.schedule.schedule"
    Schedule.__qualname__ = "Schedule"
    tir = types.ModuleType("tvm.tir")
    tir_schedule = types.ModuleType("tvm.tir.schedule")
    tir.Schedule = tir_schedule.Schedule = Schedule
    tir.ScheduleError = tir_schedule.ScheduleError = s_tir.ScheduleError
    tir.TensorIntrin = s_tir.TensorIntrin
    tir.schedule = tir_schedule
    # The TE lesson's expression helpers, spelled `tvm.tirx.*` in TVM 0.27.
    for name in ("if_then_else", "all", "any", "const", "Select", "Var"):
        setattr(tir, name, getattr(tvm.tirx, name))
    sys.modules["tvm.tir"] = tir
    sys.modules["tvm.tir.schedule"] = tir_schedule
    tvm.tir = tir

    nd = types.ModuleType("tvm.nd")
    nd.array = tvm.runtime.tensor
    nd.empty = tvm.runtime.empty
    sys.modules["tvm.nd"] = nd
    tvm.nd = nd

    orig_device = tvm.device

    def device(dev_type, dev_id=0):
        if isinstance(dev_type, str) and dev_type.split()[0] in ("llvm", "c"):
            dev_type = "cpu"
        return orig_device(dev_type, dev_id)

    tvm.device = device

    # The course's Relax spelling (see README.md, "Graph level (Relax) in TVM 0.27"): struct info
    # became "types" in 0.27 (`relax.TensorStructInfo` -> `relax.TensorType`).
    from tvm import relax

    if not hasattr(relax, "TensorStructInfo"):
        relax.TensorStructInfo = relax.TensorType
    if not hasattr(tvm, "register_func"):
        tvm.register_func = tvm.register_global_func
    if not hasattr(relax.Expr, "struct_info"):
        relax.Expr.struct_info = property(lambda self: self.ty)


def convert_course(src: str) -> str:
    """TVM 0.27 spelling of a course script, with the script's line numbers."""
    sys.path.insert(0, HERE)
    from tvm_compat import to_tvm027

    out = to_tvm027(src)
    fut = "from __future__ import annotations\n"
    if out.startswith(fut) and fut not in src:
        out = out[len(fut):]
    extra = out.count("\n") - src.count("\n")
    if extra > 0:
        # Imports to_tvm027 added at the top: put them on the script's first
        # line (a comment), so that every other line keeps its number.
        lines = out.split("\n")
        added, rest = lines[:extra], lines[extra:]
        if not all(l.startswith(("import ", "from ")) for l in added) or not rest[0].lstrip().startswith("#"):
            raise SystemExit("to_tvm027 added lines that cannot be folded into the first line")
        rest[0] = "; ".join(added) + "  " + rest[0]
        out = "\n".join(rest)
    if out.count("\n") != src.count("\n"):
        raise SystemExit("to_tvm027 changed the line count")
    return out


# ---------------------------------------------------------------------------------------------
# Running one script (in a child process)


def run_one(path: str) -> str:
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        src = f.read()
    course = os.path.basename(os.path.dirname(os.path.abspath(path))) == "scripts"
    install_ipython()
    sys.modules["pygments"] = None  # an ImportError in TVM's show(): plain text
    warnings.filterwarnings("ignore")
    warnings.showwarning = lambda *a, **k: None
    if course:
        install_tvm_shims()
        src = convert_course(src)
    tmpdir = tempfile.mkdtemp(prefix="tessel_script_")
    tmp = os.path.join(tmpdir, name)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(src)
    notebook = is_notebook(src)
    cells = notebook_cells(src) if notebook else [src]

    buf = io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = buf
    # The script runs as `__main__` with its file on disk: TVMScript reads the
    # source of decorated classes and functions through `inspect`.
    main = types.ModuleType("__main__")
    main.__file__ = tmp
    sys.modules["__main__"] = main
    g = main.__dict__
    g["display"] = sys.modules["IPython.display"].display
    try:
        for cell in cells:
            try:
                # IPython line magics and shell escapes do nothing here (as in Tessel).
                cell = "\n".join(
                    (l[: len(l) - len(l.lstrip())] + "pass") if l.lstrip().startswith(("%", "!")) else l
                    for l in cell.split("\n")
                )
                tree = ast.parse(cell, tmp)
                last = None
                if notebook and tree.body and isinstance(tree.body[-1], ast.Expr):
                    last = ast.Expression(tree.body.pop().value)
                exec(compile(tree, tmp, "exec"), g)
                if last is not None:
                    display_value(eval(compile(last, tmp, "eval"), g))
            except BaseException as e:  # noqa: BLE001 - reported like CPython
                if isinstance(e, KeyboardInterrupt):
                    raise
                tb = traceback.TracebackException.from_exception(e)
                tb.stack = traceback.StackSummary.from_list(
                    [fr for fr in tb.stack if fr.filename == tmp]
                )
                tb.__context__ = tb.__cause__ = None
                text = "".join(tb.format())
                if not tb.stack:
                    text = text.replace("Traceback (most recent call last):\n", "")
                buf.write(text.replace(tmp, name))
                break
    finally:
        sys.stdout, sys.stderr = old
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------


def masked(text: str, src: str) -> str:
    """The output with the script's `# tessel-test: mask-…` regions masked, as the Rust harness does."""
    import re

    masks = []
    for l in src.splitlines():
        if l.startswith("# tessel-test: mask-after "):
            masks.append((l[len("# tessel-test: mask-after "):], None))
        elif l.startswith("# tessel-test: mask-between "):
            a, _, b = l[len("# tessel-test: mask-between "):].partition(" ")
            masks.append((a, b))
    out = []
    for line in text.split("\n"):
        for start, end in masks:
            pos = line.find(start)
            if pos < 0:
                continue
            head = pos + len(start)
            if end is None:
                line = line[:head] + re.sub(r"[0-9][0-9.eE+-]*", "#", line[head:])
            else:
                e = line.find(end, head)
                if e >= 0:
                    line = line[:head] + "#" + line[e:]
        out.append(line)
    return "\n".join(out)


def scripts(args: list[str]) -> list[str]:
    if args:
        return [os.path.abspath(a) for a in args]
    out = []
    for d in DIRS:
        if os.path.isdir(d):
            out += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".py"))
    return out


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--run-one":
        sys.stdout.write(run_one(sys.argv[2]))
        return 0
    if not os.path.exists(VENV_PY) and "tvm" not in sys.modules:
        pass
    check = "--check" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--check"]
    py = sys.executable
    stale = 0
    for path in scripts(args):
        r = subprocess.run([py, os.path.abspath(__file__), "--run-one", path], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{path}: runner failed:\n{r.stderr}", file=sys.stderr)
            return 2
        out_path = path[:-3] + ".out"
        old = open(out_path, encoding="utf-8").read() if os.path.exists(out_path) else None
        rel = os.path.relpath(out_path, ROOT)
        if check:
            src = open(path, encoding="utf-8").read()
            if old is None or masked(old, src) != masked(r.stdout, src):
                print(f"stale: {rel}")
                stale += 1
        elif old != r.stdout:
            with open(out_path, "w", encoding="utf-8") as f:
                f.write(r.stdout)
            print(f"wrote {rel}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
