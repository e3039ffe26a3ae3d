"""Graph-level (Relax) helpers on top of `tvm_compat`: dialect conversion and parsing.

The course's Relax spelling differs from TVM 0.27's (see README.md, "Graph level"):

    R.call_tir(f, args, out_sinfo=...)       ->  out_ty=...            (also call_dps_packed)
    R.matmul(..., out_dtype="void")          ->  out_dtype=None        (every `out_dtype="void"`)
    metadata["relax.expr.Constant"][i]       ->  metadata["ir.GenericConst"][i]

`to_tvm027_graph(text)` applies those on top of `tvm_compat.to_tvm027` (the TensorIR renames).
`parse_graph_all(text)` returns every IRModule, PrimFunc and relax.Function the text defines.
"""

from __future__ import annotations

import re
import sys
import os

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from tvm_compat import (  # noqa: E402,F401
    _exec_source,
    _rewrite_code,
    _split_code_comment,
    strip_global_symbol,
    to_tvm027,
)


def to_tvm027_graph(text: str) -> str:
    """Course-dialect TVMScript (TensorIR and Relax) to TVM 0.27 spelling."""
    text = to_tvm027(text)

    def _line(code: str) -> str:
        code = re.sub(r"\bout_sinfo\s*=", "out_ty=", code)
        code = re.sub(r"\bout_dtype\s*=\s*\"void\"", "out_dtype=None", code)
        code = code.replace('metadata["relax.expr.Constant"]', 'metadata["ir.GenericConst"]')
        return code

    text = _rewrite_code(text, _line)
    # Printed text carries its imports as comments: add the Relax ones it needs.
    code = "\n".join(_split_code_comment(line)[0] for line in text.split("\n"))
    need = []
    if re.search(r"(?<![\w.])R\.", code) and not re.search(
        r"^[ \t]*from[ \t]+tvm\.script[ \t]+import[ \t]+relax[ \t]+as[ \t]+R\b", code, re.M
    ):
        need.append("from tvm.script import relax as R")
    if re.search(r"(?<![\w.])relax\.op\.", code) and not re.search(
        r"^[ \t]*from[ \t]+tvm[ \t]+import[^\n]*\brelax\b", code, re.M
    ):
        need.append("from tvm import relax")
    if need:
        fut = list(re.finditer(r"^from[ \t]+__future__[ \t]+import[^\n]*$", text, re.M))
        at = fut[-1].end() + 1 if fut else 0
        text = text[:at] + "\n".join(need) + "\n" + text[at:]
    return text


def parse_graph_all(text: str, filename_hint: str = "src") -> dict:
    """Every IRModule / PrimFunc / relax.Function defined by `text` (already 0.27 spelling)."""
    import tvm

    ns = _exec_source(text, filename_hint)
    out = {}
    for name, obj in ns.items():
        if name.startswith("__"):
            continue
        if isinstance(obj, (tvm.ir.IRModule, tvm.tirx.PrimFunc, tvm.relax.Function)):
            out[name] = obj
    return out


def _strip(f):
    import tvm

    if isinstance(f, (tvm.tirx.PrimFunc, tvm.relax.Function)):
        return strip_global_symbol(f)
    return f


def graph_structural_diff(ours, theirs) -> str | None:
    """None when equal (`map_free_vars=True`, functions matched by name, `global_symbol` dropped)."""
    import tvm

    def funcs(o):
        if isinstance(o, tvm.ir.IRModule):
            return {gv.name_hint: f for gv, f in o.functions.items()}
        return {"<func>": o}

    fo, ft = funcs(ours), funcs(theirs)
    if set(fo) != set(ft):
        return f"function names differ: ours {sorted(fo)}, TVM's {sorted(ft)}"
    for name in sorted(ft):
        try:
            tvm.ir.assert_structural_equal(_strip(fo[name]), _strip(ft[name]), map_free_vars=True)
        except Exception as e:  # noqa: BLE001
            return f"{name}: {e}"
    return None
