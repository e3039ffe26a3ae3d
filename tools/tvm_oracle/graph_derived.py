#!/usr/bin/env python3
"""Write the graph test modules that TVM 0.27 itself produces from the course's code.

The book builds some graph modules with Python APIs rather than TVMScript, and shows their
printing only as `.show()` cells whose output the seeds do not contain. This script runs that code
(with TVM 0.27's renames: `relax.TensorStructInfo` -> `relax.TensorType`, `.struct_info` -> `.ty`)
and writes TVM's printing to compiler-core/tests/data/graph/derived_*.py, each with a header naming
the seed section:

* derived_ch5_block_builder_emit_te.py -- §5.3.2/5.3.3: `bb.emit_te(te_matmul, A, B)`,
  `bb.emit_te(te_relu, C)` (the module `seed001_g7_block_builder_output.py` shows in old spelling,
  with the two PrimFuncs it lacks);
* derived_ch7_mlp_high_level_ops.py -- §7.4 `create_model()` (weights as parameters instead of
  `relax.const`, so the module prints without metadata);
* derived_ch7_fused_matmul_add.py -- §7.4 `MatmulAddFusor` applied to that model (the book's own
  pass, run unchanged apart from the renames).

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/graph_derived.py [--check]
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

import tvm  # noqa: E402
from tvm import relax, te  # noqa: E402
from tvm.ir.module import IRModule  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "compiler-core", "tests", "data", "graph")


def te_matmul(A, B):
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


def ch5_block_builder():
    A = relax.Var("A", relax.TensorType((128, 128), "float32"))
    B = relax.Var("B", relax.TensorType((128, 128), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main"):
        with bb.dataflow():
            C = bb.emit_te(te_matmul, A, B)
            D = bb.emit_te(te_relu, C)
            R = bb.emit_output(D)
        bb.emit_func_output(R, params=[A, B])
    return bb.get()


def ch7_create_model():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 784), "float32"))
    w0 = relax.Var("w0", relax.TensorType((128, 784), "float32"))
    b0 = relax.Var("b0", relax.TensorType((128,), "float32"))
    w1 = relax.Var("w1", relax.TensorType((10, 128), "float32"))
    b1 = relax.Var("b1", relax.TensorType((10,), "float32"))
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.matmul(x, relax.op.permute_dims(w0)))
            lv1 = bb.emit(relax.op.add(lv0, b0))
            lv2 = bb.emit(relax.op.nn.relu(lv1))
            lv3 = bb.emit(relax.op.matmul(lv2, relax.op.permute_dims(w1)))
            lv4 = bb.emit(relax.op.add(lv3, b1))
            gv = bb.emit_output(lv4)
        bb.emit_func_output(gv)
    return bb.get()


@relax.expr_functor.mutator
class MatmulAddFusor(relax.PyExprMutator):
    """The book's §7.4 fusion pass (renamed APIs only)."""

    def __init__(self, mod: IRModule) -> None:
        super().__init__()
        self.mod_ = mod
        self.add_op = tvm.ir.Op.get("relax.add")
        self.matmul_op = tvm.ir.Op.get("relax.matmul")
        self.counter = 0

    def transform(self) -> IRModule:
        for global_var, func in self.mod_.functions.items():
            if not isinstance(func, relax.Function):
                continue
            if func.attrs is not None and "Primitive" in func.attrs.keys() and func.attrs["Primitive"] != 0:
                continue
            updated_func = self.visit_expr(func)
            updated_func = relax.analysis.remove_all_unused(updated_func)
            self.builder_.update_func(global_var, updated_func)
        return self.builder_.get()

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)

        def match_call(node, op):
            return isinstance(node, relax.Call) and node.op == op

        if not match_call(call, self.add_op):
            return call
        value = self.lookup_binding(call.args[0])
        if value is None or not match_call(value, self.matmul_op):
            return call
        x, w, b = value.args[0], value.args[1], call.args[1]
        param_x = relax.Var("x", relax.TensorType(x.ty.shape, x.ty.dtype))
        param_w = relax.Var("w", relax.TensorType(w.ty.shape, w.ty.dtype))
        param_b = relax.Var("b", relax.TensorType(b.ty.shape, b.ty.dtype))
        bb = relax.BlockBuilder()
        fn_name = "fused_matmul_add%d" % (self.counter)
        self.counter += 1
        with bb.function(fn_name, [param_x, param_w, param_b]):
            with bb.dataflow():
                lv0 = bb.emit(relax.op.matmul(param_x, param_w))
                gv = bb.emit_output(relax.op.add(lv0, param_b))
            bb.emit_func_output(gv)
        fused_fn = bb.get()[fn_name].with_attr("Primitive", 1)
        global_var = self.builder_.add_func(fused_fn, fn_name)
        return relax.Call(global_var, [x, w, b], None, None)


CASES = [
    (
        "derived_ch5_block_builder_emit_te.py",
        "seed 001 (MLC book) §5.3.2-5.3.3: the BlockBuilder code `bb.emit_te(te_matmul, A, B)`,\n"
        "#   `bb.emit_te(te_relu, C)`, `bb.emit_output(D)` with A, B of shape (128, 128).",
        ch5_block_builder,
    ),
    (
        "derived_ch7_mlp_high_level_ops.py",
        "seed 001 (MLC book) §7.4 `create_model()`: the MLP from `relax.op.matmul`,\n"
        "#   `relax.op.permute_dims`, `relax.op.add`, `relax.op.nn.relu`; the weights are parameters\n"
        "#   (`w0, b0, w1, b1`) instead of `relax.const(mlp_params[...])`, so no metadata is printed.",
        ch7_create_model,
    ),
    (
        "derived_ch7_fused_matmul_add.py",
        "seed 001 (MLC book) §7.4: the book's `MatmulAddFusor` pass applied to\n"
        "#   derived_ch7_mlp_high_level_ops.py (`fused_matmul_add0/1` with `Primitive: 1`).",
        lambda: MatmulAddFusor(ch7_create_model()).transform(),
    ),
]


def render(source_note: str, mod) -> str:
    header = (
        f"# Source: {source_note}\n"
        "# DERIVED: TVM 0.27's printing of the module that code builds (the seeds show only `.show()`).\n"
        "# Generated by tools/tvm_oracle/graph_derived.py; do not edit.\n"
    )
    text = mod.script()
    return header + text + ("" if text.endswith("\n") else "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a file is missing or stale")
    args = ap.parse_args(argv)
    stale = 0
    for name, note, build in CASES:
        text = render(note, build())
        path = os.path.join(OUT, name)
        if args.check:
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old != text:
                stale += 1
                print(f"STALE {name}", file=sys.stderr)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
