"""Course-dialect TVMScript -> Apache TVM 0.27 spelling, and parsing TVMScript text with TVM.

The MLC course material (our seeds) is written for an older TVM:

    from tvm.script import tir as T          ->  from tvm.script import tirx as T
    @tvm.script.ir_module                    ->  @I.ir_module  (+ `from tvm.script import ir as I`)
    @T.prim_func / @T.prim_func(...)         ->  @T.prim_func(s_tir=True) / @T.prim_func(s_tir=True, ...)
    with T.block("name"):                    ->  with T.sblock("name"):
    T.block_attr({...})                      ->  T.sblock_attr({...})
    Y = T.alloc_buffer(...)                  ->  Y = T.sblock_alloc_buffer(...)
    T.Buffer[(128, 128), "float32"]          ->  T.Buffer((128, 128), "float32")
    T.Buffer[8, "float32"]                   ->  T.Buffer((8,), "float32")
    T.func_attr({"tir.noalias": True})       ->  T.func_attr({"tirx.noalias": True})

Why every `T.alloc_buffer` becomes `T.sblock_alloc_buffer`: in the course's TVM, `T.alloc_buffer`
always allocates into the nearest enclosing block (the implicit root block at function level, or the
enclosing `T.block` inside a block body). In TVM 0.27 that is `T.sblock_alloc_buffer`; the new
`T.alloc_buffer` is a different IR node (a statement-level AllocBuffer). Checked with TVM 0.27:
`T.alloc_buffer` inside a non-root `T.sblock` body is even rejected by the well-formedness check
("buffer Y is used ... without a prior DeclBuffer"), while `T.sblock_alloc_buffer` there lands in that
block's `alloc_buffers`, exactly like the course's `T.alloc_buffer`.

Text that is already in 0.27 spelling passes through unchanged (`T.sblock`, `tirx`, `s_tir=True`
are left alone), so `to_tvm027` is idempotent.

`from __future__ import annotations` is added (see step 5 in `to_tvm027`), and missing imports are added: if the text uses `T.` / `I.` / `tvm.` but has no (uncommented) import for
them -- e.g. a canonical printing that only carries `# from tvm.script import tir as T` comments --
the needed import lines are inserted at the top.

`parse_tvm(text)` parses TVMScript source text with TVM. TVMScript reads the source of a decorated
function/class through `inspect`, so the text is written to a temporary .py file, registered in
`sys.modules`, and executed as a module. Many files can be parsed in one process.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import os
import re
import sys
import tempfile
import contextlib
from typing import Any

__all__ = [
    "to_tvm027",
    "parse_tvm",
    "parse_tvm_all",
    "ParseFailure",
    "strip_global_symbol",
    "structural_diff",
]

# --------------------------------------------------------------------------------------------
# Dialect conversion
# --------------------------------------------------------------------------------------------

_IMPORT_TIR_RE = re.compile(
    r"^(?P<indent>[ \t]*)from[ \t]+tvm\.script[ \t]+import[ \t]+tir(?P<rest>[ \t]+as[ \t]+(?P<alias>\w+))?[ \t]*(?P<comment>#.*)?$",
    re.M,
)
_IMPORT_TIRX_RE = re.compile(
    r"^[ \t]*from[ \t]+tvm\.script[ \t]+import[ \t]+tirx(?:[ \t]+as[ \t]+(?P<alias>\w+))?[ \t]*(?:#.*)?$",
    re.M,
)
_IMPORT_IR_RE = re.compile(
    r"^[ \t]*from[ \t]+tvm\.script[ \t]+import[ \t]+ir(?:[ \t]+as[ \t]+(?P<alias>\w+))?[ \t]*(?:#.*)?$",
    re.M,
)
_IMPORT_TVM_RE = re.compile(r"^[ \t]*import[ \t]+tvm\b", re.M)
_FUTURE_RE = re.compile(r"^from[ \t]+__future__[ \t]+import[^\n]*$", re.M)


def _split_code_comment(line: str) -> tuple[str, str]:
    """Split a line into (code, comment), ignoring '#' inside string literals."""
    quote = None
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
        else:
            if ch == "#":
                return line[:i], line[i:]
            if line.startswith('"""', i) or line.startswith("'''", i):
                quote = line[i : i + 3]
                i += 3
                continue
            if ch in "\"'":
                quote = ch
        i += 1
    return line, ""


def _code_only(text: str) -> str:
    """The text with comments blanked out (approximate; good enough for usage detection)."""
    return "\n".join(_split_code_comment(l)[0] for l in text.split("\n"))


def _find_matching(text: str, start: int, open_ch: str, close_ch: str) -> int:
    """Index of the bracket closing the one at text[start] (== open_ch); -1 if unbalanced."""
    depth = 0
    quote = None
    i = start
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            i += 1
            continue
        if text.startswith('"""', i) or text.startswith("'''", i):
            quote = text[i : i + 3]
            i += 3
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "#":
            nl = text.find("\n", i)
            if nl < 0:
                return -1
            i = nl
            continue
        elif ch in pairs:
            stack.append(pairs[ch])
            depth += 1
        elif ch in ")]}":
            if not stack or stack[-1] != ch:
                return -1
            stack.pop()
            depth -= 1
            if depth == 0:
                return i if ch == close_ch else -1
        i += 1
    return -1


def _split_top_level_commas(s: str) -> list[str]:
    parts, depth, cur, quote = [], 0, [], None
    i = 0
    while i < len(s):
        ch = s[i]
        if quote:
            cur.append(ch)
            if ch == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch in "([{":
            depth += 1
            cur.append(ch)
        elif ch in ")]}":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    if "".join(cur).strip() or parts:
        parts.append("".join(cur))
    return parts


def _in_comment(text: str, pos: int) -> bool:
    """Is text[pos] inside a `#` comment (string literals on the same line are respected)?"""
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    line = text[ls : le if le >= 0 else len(text)]
    code, _ = _split_code_comment(line)
    return pos - ls >= len(code)


def _convert_buffer_subscripts(text: str, alias: str) -> str:
    """`T.Buffer[shape, dtype, ...]` -> `T.Buffer(shape, dtype, ...)`; a bare scalar shape becomes a 1-tuple."""
    pat = re.compile(r"(?<![\w.])" + re.escape(alias) + r"\.Buffer\s*\[")
    out = []
    pos = 0
    while True:
        m = pat.search(text, pos)
        if not m:
            out.append(text[pos:])
            break
        if _in_comment(text, m.start()):
            out.append(text[pos : m.end()])
            pos = m.end()
            continue
        lb = m.end() - 1
        rb = _find_matching(text, lb, "[", "]")
        if rb < 0:  # unbalanced: leave the rest alone
            out.append(text[pos:])
            break
        inner = text[lb + 1 : rb]
        args = _split_top_level_commas(inner)
        if args:
            shape = args[0]
            s = shape.strip()
            if s and not (s.startswith("(") or s.startswith("[")):
                # `T.Buffer[8, "f32"]`: old sugar for a 1-D buffer of extent 8
                lead = shape[: len(shape) - len(shape.lstrip())]
                trail = shape[len(shape.rstrip()) :]
                args[0] = f"{lead}({s},){trail}"
            inner = ",".join(args)
        out.append(text[pos : m.start()])
        out.append(f"{alias}.Buffer({inner})")
        pos = rb + 1
    return "".join(out)


def _add_s_tir(text: str, alias: str) -> str:
    """`@T.prim_func` -> `@T.prim_func(s_tir=True)`; `@T.prim_func(args)` -> `@T.prim_func(s_tir=True, args)`."""
    pat = re.compile(r"@(?P<a>" + re.escape(alias) + r")\.prim_func\b")
    out, pos = [], 0
    for m in pat.finditer(text):
        if m.start() < pos or _in_comment(text, m.start()):
            continue
        out.append(text[pos : m.end()])
        j = m.end()
        k = j
        while k < len(text) and text[k] in " \t":
            k += 1
        if k < len(text) and text[k] == "(":
            rp = _find_matching(text, k, "(", ")")
            if rp < 0:
                pos = j
                continue
            inner = text[k + 1 : rp]
            if re.search(r"\bs_tir\s*=", inner):
                out.append(text[j : rp + 1])
            elif inner.strip():
                out.append(text[j:k] + "(s_tir=True, " + inner.lstrip() + ")")
            else:
                out.append(text[j:k] + "(s_tir=True)")
            pos = rp + 1
        else:
            out.append("(s_tir=True)")
            pos = j
    out.append(text[pos:])
    return "".join(out)


def _rewrite_code(text: str, fn) -> str:
    """Apply fn to the code part of every line (comments untouched)."""
    lines = text.split("\n")
    res = []
    for line in lines:
        code, comment = _split_code_comment(line)
        res.append(fn(code) + comment)
    return "\n".join(res)


def to_tvm027(text: str) -> str:
    """Convert course-dialect TVMScript source text to TVM 0.27 spelling (see module docstring)."""
    # 1. imports: `from tvm.script import tir as X` -> `tirx as X`
    def _imp(m: re.Match) -> str:
        alias = m.group("alias") or "tir"
        comment = m.group("comment") or ""
        sep = "  " if comment else ""
        return f"{m.group('indent')}from tvm.script import tirx as {alias}{sep}{comment}"

    text = _IMPORT_TIR_RE.sub(_imp, text)

    # Which alias names the tir dialect? (default `T`)
    aliases = {m.group("alias") or "tirx" for m in _IMPORT_TIRX_RE.finditer(text)}
    aliases.discard("tirx")
    if not aliases:
        aliases = {"T"}

    ir_aliases = {m.group("alias") or "ir" for m in _IMPORT_IR_RE.finditer(text)}
    ir_alias = "I" if ("I" in ir_aliases or not ir_aliases) else sorted(ir_aliases)[0]

    for a in sorted(aliases):
        ea = re.escape(a)
        block_re = re.compile(r"(?<![\w.])" + ea + r"\.block\b(?=\s*\()")
        block_attr_re = re.compile(r"(?<![\w.])" + ea + r"\.block_attr\b")
        alloc_re = re.compile(r"(?<![\w.])" + ea + r"\.alloc_buffer\b")

        def _line(code: str, a=a) -> str:
            code = block_re.sub(f"{a}.sblock", code)
            code = block_attr_re.sub(f"{a}.sblock_attr", code)
            code = alloc_re.sub(f"{a}.sblock_alloc_buffer", code)
            return code

        text = _rewrite_code(text, _line)
        text = _convert_buffer_subscripts(text, a)
        text = _add_s_tir(text, a)

    # 2. `@tvm.script.ir_module` -> `@I.ir_module`
    text = re.sub(r"@tvm\.script\.ir_module\b", f"@{ir_alias}.ir_module", text)
    text = re.sub(r"(?<![\w.])tvm\.script\.ir_module\b", f"{ir_alias}.ir_module", text)

    # 3. function attribute keys renamed in 0.27
    text = re.sub(r"([\"'])tir\.noalias\1", r"\1tirx.noalias\1", text)

    # 4. make sure the imports the code needs are there (uncommented)
    code = _code_only(text)
    need: list[str] = []
    if re.search(r"(?<![\w.])tvm\.", code) and not _IMPORT_TVM_RE.search(code):
        need.append("import tvm")
    if not _IMPORT_IR_RE.search(code) and re.search(r"(?<![\w.])" + re.escape(ir_alias) + r"\.ir_module\b", code):
        need.append(f"from tvm.script import ir as {ir_alias}")
    for a in sorted(aliases):
        has_imp = any((m.group("alias") or "tirx") == a for m in _IMPORT_TIRX_RE.finditer(code))
        if not has_imp and re.search(r"(?<![\w.])" + re.escape(a) + r"\.", code):
            need.append(f"from tvm.script import tirx as {a}")
    # names TVM 0.27's own printer uses at module level (printed with commented-out imports)
    if re.search(r"(?<![\w.])TypeVar\(", code) and not re.search(r"^[ \t]*from[ \t]+typing[ \t]+import[^\n]*\bTypeVar\b", code, re.M):
        need.append("from typing import TypeVar")
    if re.search(r"(?<![\w.])Axis\.", code) and not re.search(r"^[ \t]*from[ \t]+tvm\.tirx\.layout[ \t]+import[^\n]*\bAxis\b", code, re.M):
        need.append("from tvm.tirx.layout import Axis")
    if need:
        fut = list(_FUTURE_RE.finditer(text))
        at = fut[-1].end() + 1 if fut else 0
        text = text[:at] + "\n".join(need) + "\n" + text[at:]

    # 5. postponed evaluation of annotations. Without it Python evaluates `T.Buffer((1, n), ...)` in a
    # signature when the `def` executes, before TVMScript sees it; TVM 0.27's own printing of symbolic
    # shapes (module-level `n = TypeVar("n")`, or `T.Buffer(("n",), ...)` + `n = T.int32()` in the
    # body) only parses back when annotations are left to the TVMScript parser.
    if not re.search(r"^from[ \t]+__future__[ \t]+import[^\n]*\bannotations\b", text, re.M):
        text = "from __future__ import annotations\n" + text
    return text


# --------------------------------------------------------------------------------------------
# Parsing with TVM
# --------------------------------------------------------------------------------------------


class ParseFailure(Exception):
    """TVM could not parse/execute the TVMScript text. `.message` holds TVM's diagnostic."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.message = message
        self.kind = kind  # exception class name, e.g. "DiagnosticError", "SyntaxError"


_counter = itertools.count()
_tmpdir: str | None = None


def _get_tmpdir() -> str:
    global _tmpdir
    if _tmpdir is None or not os.path.isdir(_tmpdir):
        _tmpdir = tempfile.mkdtemp(prefix="tessel_tvm_oracle_")
    return _tmpdir


def _exec_source(text: str, filename_hint: str = "src") -> dict[str, Any]:
    """Write text to a fresh temp module, register it in sys.modules, execute it; return its globals."""
    safe = re.sub(r"\W", "_", os.path.splitext(os.path.basename(filename_hint))[0])[:60] or "src"
    modname = f"_tessel_tvm_src_{next(_counter)}_{safe}"
    path = os.path.join(_get_tmpdir(), modname + ".py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(modname, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - report anything TVM throws
        if isinstance(e, KeyboardInterrupt):
            raise
        msg = str(e)
        extra = captured.getvalue().strip()
        if extra and extra not in msg:
            msg = msg + "\n" + extra
        raise ParseFailure(msg.strip() or repr(e), type(e).__name__) from None
    finally:
        sys.modules.pop(modname, None)
        try:
            os.remove(path)
        except OSError:
            pass
        import linecache

        linecache.checkcache(path)
    return dict(vars(module))


def parse_tvm_all(text: str, filename_hint: str = "src") -> dict[str, Any]:
    """Parse TVMScript text (already in 0.27 spelling) with TVM.

    Returns every top-level IRModule / PrimFunc the text defines, by Python name, in definition order.
    Raises ParseFailure with TVM's diagnostic text on failure.
    """
    import tvm  # noqa: F401

    ns = _exec_source(text, filename_hint)
    out: dict[str, Any] = {}
    for name, obj in ns.items():
        if name.startswith("__"):
            continue
        if isinstance(obj, (tvm.ir.IRModule, tvm.tirx.PrimFunc)):
            out[name] = obj
    return out


def parse_tvm(text: str, filename_hint: str = "src"):
    """Parse TVMScript text (already in 0.27 spelling) and return its IRModule or PrimFunc.

    The text must define exactly one top-level IRModule or PrimFunc (imports aside).
    Raises ParseFailure on failure or when the text defines zero / several programs.
    """
    objs = parse_tvm_all(text, filename_hint)
    if not objs:
        raise ParseFailure("the text defines no IRModule or PrimFunc", "NoProgram")
    if len(objs) > 1:
        raise ParseFailure(
            "the text defines several programs: " + ", ".join(objs), "SeveralPrograms"
        )
    return next(iter(objs.values()))


# --------------------------------------------------------------------------------------------
# Comparison helpers
# --------------------------------------------------------------------------------------------


def strip_global_symbol(func):
    """PrimFunc without its `global_symbol` attribute."""
    if func.attrs is not None and "global_symbol" in func.attrs:
        return func.without_attr("global_symbol")
    return func


def _functions(obj) -> dict[str, Any] | None:
    import tvm

    if isinstance(obj, tvm.ir.IRModule):
        return {gv.name_hint: f for gv, f in obj.functions.items()}
    return None


def structural_diff(ours, theirs) -> str | None:
    """None if `ours` and `theirs` are structurally equal (map_free_vars=True), else a reason.

    IRModules are compared function by function (matched by global name); PrimFuncs directly.
    The `global_symbol` attribute is dropped before comparing.
    """
    import tvm

    fo, ft = _functions(ours), _functions(theirs)
    if (fo is None) != (ft is None):
        kind = lambda o: "IRModule" if _functions(o) is not None else type(o).__name__
        return f"kind differs: ours is {kind(ours)}, TVM's is {kind(theirs)}"
    if fo is None:
        pairs = [("<func>", ours, theirs)]
    else:
        if set(fo) != set(ft):
            return f"function names differ: ours {sorted(fo)}, TVM's {sorted(ft)}"
        pairs = [(n, fo[n], ft[n]) for n in ft]
    for name, a, b in pairs:
        if isinstance(a, tvm.tirx.PrimFunc):
            a = strip_global_symbol(a)
        if isinstance(b, tvm.tirx.PrimFunc):
            b = strip_global_symbol(b)
        try:
            tvm.ir.assert_structural_equal(a, b, map_free_vars=True)
        except Exception as e:  # noqa: BLE001 - TVM raises ValueError / TVMError subclasses
            return f"{name}: " + str(e)
    return None
