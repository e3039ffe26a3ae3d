#!/usr/bin/env python3
"""TVM 0.27's `te.create_prim_func(...).script()` for Tessel's TE cases.

Each case below is a small TE program (a function returning the argument list of
`create_prim_func`, optionally with an `index_dtype_override`). This script writes one file per
case, `compiler-core/tests/data/te/<case>.txt`:

    # <one-line description>
    ### te
    <the case's Python source>
    ### tvm
    <TVM 0.27's printing of the PrimFunc>        (or)        ### error
                                                              <TVM's error, first line>

`tests/lower_te_graph/te_create.rs` builds the same programs with Tessel's TE API and must print exactly the
`### tvm` text (TVM 0.27 dialect), be structurally equal to Tessel's parse of it, and compute what a
plain-Rust reference computes; an `### error` case must fail.

Usage:
    /root/.cache/tessel-tvm-venv/bin/python tools/tvm_oracle/te_goldens.py [--check] [CASE...]

--check: write nothing; exit 1 when a golden is missing or differs from TVM's output.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()

import tvm  # noqa: E402
from tvm import te, topi  # noqa: E402
from tvm import tirx as tir  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "compiler-core", "tests", "data", "te")

CASES = {}


SCHEDULES = {}


def case(doc, override=None, schedule=None):
    """A case; `schedule` (Tessel spelling: `sch.get_block`) is applied to the function as module
    `main` and TVM's result recorded under `### scheduled`."""

    def deco(f):
        CASES[f.__name__] = (doc, f, override)
        if schedule:
            SCHEDULES[f.__name__] = textwrap.dedent(schedule).strip()
        return f

    return deco


def i64(v):
    return tir.IntImm("int64", v)


# ----------------------------------------------------------------------------- seeds


@case(
    "seed 000: vector add (MLC ch. 2), then split/parallel/vectorize",
    schedule="""
    block = sch.get_block("C")
    (i,) = sch.get_loops(block)
    i0, i1 = sch.split(i, factors=[None, 4])
    sch.parallel(i0)
    sch.vectorize(i1)
    """,
)
def seed000_vector_add():
    A = te.placeholder((128,), name="A")
    B = te.placeholder((128,), name="B")
    C = te.compute((128,), lambda i: A[i] + B[i], name="C")
    return [A, B, C]


@case(
    "seed 000: 1024 matmul with lambda m, n, then the seed's blocking",
    schedule="""
    block_c = sch.get_block("C")
    (y, x, k) = sch.get_loops(block_c)
    yo, yi = sch.split(y, [None, 32])
    xo, xi = sch.split(x, [None, 32])
    sch.reorder(yo, xo, k, yi, xi)
    """,
)
def seed000_matmul():
    M = K = N = 1024
    k = te.reduce_axis((0, K), "k")
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")
    return [A, B, C]


@case(
    "seed 001 ch. 2: mm_relu with te.max(Y[i, j], 0), then the chapter's schedule",
    schedule="""
    block_Y = sch.get_block("Y", func_name="main")
    i, j, k = sch.get_loops(block_Y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    block_C = sch.get_block("C", "main")
    sch.reverse_compute_at(block_C, j0)
    sch.decompose_reduction(block_Y, k)
    """,
)
def seed001_mm_relu():
    A = te.placeholder((128, 128), "float32", name="A")
    B = te.placeholder((128, 128), "float32", name="B")
    k = te.reduce_axis((0, 128), "k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0), name="C")
    return [A, B, C]


def te_matmul(A, B):
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


@case("seed 001 ch. 5: te_matmul")
def seed001_te_matmul():
    A = te.placeholder((128, 128), name="A", dtype="float32")
    B = te.placeholder((128, 128), name="B", dtype="float32")
    C = te_matmul(A, B)
    return [A, B, C]


@case("seed 001 ch. 5: te_relu on (10,) — lambda *i")
def seed001_relu_1d():
    X1 = te.placeholder((10,), name="X1", dtype="float32")
    Y1 = te_relu(X1)
    return [X1, Y1]


@case("seed 001 ch. 5: te_relu on (10, 20), placeholder named X1")
def seed001_relu_2d():
    X2 = te.placeholder((10, 20), name="X1", dtype="float32")
    Y2 = te_relu(X2)
    return [X2, Y2]


@case("seed 001 ch. 5: fused matmul + relu, intermediate allocated")
def seed001_matmul_relu_fused():
    A = te.placeholder((128, 128), name="A", dtype="float32")
    B = te.placeholder((128, 128), name="B", dtype="float32")
    C = te_matmul(A, B)
    D = te_relu(C)
    return [A, B, D]


@case("seed 001 ch. 5: matmul + relu with the intermediate as a parameter")
def seed001_matmul_relu_all():
    A = te.placeholder((128, 128), name="A", dtype="float32")
    B = te.placeholder((128, 128), name="B", dtype="float32")
    C = te_matmul(A, B)
    D = te_relu(C)
    return [A, B, C, D]


@case("seed 001 ch. 5: emit_te(topi.nn.dense, x, w) (int64 indices, as emit_te does)", "int64")
def seed001_topi_dense():
    x = te.placeholder((i64(1), i64(784)), name="x")
    w = te.placeholder((i64(128), i64(784)), name="w")
    return [x, w, topi.nn.dense(x, w)]


@case("seed 001 ch. 5: emit_te(topi.add, y, b) (int64 indices)", "int64")
def seed001_topi_add_bias():
    y = te.placeholder((i64(1), i64(128)), name="lv")
    b = te.placeholder((i64(128),), name="b")
    return [y, b, topi.add(y, b)]


@case("seed 001 ch. 7: call_te(topi.nn.matmul, x, w) (int64 indices)", "int64")
def seed001_topi_matmul():
    x = te.placeholder((i64(3), i64(4)), name="x")
    w = te.placeholder((i64(4), i64(5)), name="w")
    return [x, w, topi.nn.matmul(x, w)]


@case("seed 001 ch. 7: call_te(topi.nn.relu, x) (int64 indices)", "int64")
def seed001_topi_relu():
    x = te.placeholder((i64(3), i64(4)), name="x")
    return [x, topi.nn.relu(x)]


@case("seed 001 ch. 7: call_te(topi.transpose, x) (int64 indices)", "int64")
def seed001_topi_transpose():
    x = te.placeholder((i64(3), i64(4)), name="x")
    return [x, topi.transpose(x)]


@case("seed 003: the lesson's 1024 matmul")
def seed003_matmul_1024():
    M, K, N = 1024, 1024, 1024
    A = te.placeholder((M, K), name="A", dtype="float32")
    B = te.placeholder((K, N), name="B", dtype="float32")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B, C]


@case("seed 003: B = A * 2.0 and a matmul C of A and B")
def seed003_basics():
    M = N = K = 64
    A = te.placeholder((M, N), name="A", dtype="float32")
    B = te.compute((M, N), lambda i, j: A[i, j] * 2.0, name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, C]


@case("seed 003: linear + relu as written — a reduction inside an addition")
def seed003_linear_relu_nested():
    M, N = 16, 8
    W = te.placeholder((M, N), name="W")
    X = te.placeholder((N,), name="X")
    b = te.placeholder((M,), name="b")
    j = te.reduce_axis((0, N), name="j")
    linear = te.compute((M,), lambda i: te.sum(W[i, j] * X[j], axis=j) + b[i])
    Y = te.compute((M,), lambda i: te.max(linear[i], 0.0))
    return [W, X, b, Y]


@case("seed 003: linear + relu, reduction in its own stage")
def seed003_linear_relu():
    M, N = 16, 8
    W = te.placeholder((M, N), name="W")
    X = te.placeholder((N,), name="X")
    b = te.placeholder((M,), name="b")
    j = te.reduce_axis((0, N), name="j")
    wx = te.compute((M,), lambda i: te.sum(W[i, j] * X[j], axis=j), name="wx")
    linear = te.compute((M,), lambda i: wx[i] + b[i])
    Y = te.compute((M,), lambda i: te.max(linear[i], 0.0))
    return [W, X, b, Y]


@case("seed 003: padded conv2d (tvm.tir.if_then_else + tvm.tir.all), 224x224")
def seed003_conv_padded():
    batch, in_channel, in_h, in_w = 1, 3, 224, 224
    out_channel, kernel_h, kernel_w = 64, 3, 3
    pad_h, pad_w = 1, 1
    out_h = in_h - kernel_h + 2 * pad_h + 1
    out_w = in_w - kernel_w + 2 * pad_w + 1
    Data = te.placeholder((batch, in_channel, in_h, in_w), name="Data")
    Weight = te.placeholder((out_channel, in_channel, kernel_h, kernel_w), name="Weight")
    PaddedData = te.compute(
        (batch, in_channel, in_h + 2 * pad_h, in_w + 2 * pad_w),
        lambda n, c, h, w: tvm.tirx.if_then_else(
            tvm.tirx.all(h >= pad_h, h < in_h + pad_h, w >= pad_w, w < in_w + pad_w),
            Data[n, c, h - pad_h, w - pad_w],
            tvm.tirx.const(0.0, "float32"),
        ),
        name="PaddedData",
    )
    rc = te.reduce_axis((0, in_channel), name="rc")
    rh = te.reduce_axis((0, kernel_h), name="rh")
    rw = te.reduce_axis((0, kernel_w), name="rw")
    Conv = te.compute(
        (batch, out_channel, out_h, out_w),
        lambda n, co, h, w: te.sum(
            PaddedData[n, rc, h + rh, w + rw] * Weight[co, rc, rh, rw], axis=[rc, rh, rw]
        ),
        name="Conv",
    )
    return [Data, Weight, Conv]


@case("seed 003: exercise — fused add + relu with tvm.tir.const")
def seed003_fused_add_relu():
    N = 1024 * 1024
    A = te.placeholder((N,), name="A")
    B = te.placeholder((N,), name="B")
    C = te.compute((N,), lambda i: te.max(A[i] + B[i], tvm.tirx.const(0.0, "float32")), name="C")
    return [A, B, C]


@case("seed 003: 8x8 matmul for readable output")
def seed003_matmul_8():
    M, K, N = 8, 8, 8
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B, C]


# ----------------------------------------------------------------------------- language


@case("softmax written by hand: four stages, three intermediates")
def own_softmax_stages():
    x = te.placeholder((4, 6), name="x")
    k1 = te.reduce_axis((0, 6), name="k")
    mx = te.compute((4,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    e = te.compute((4, 6), lambda i, j: te.exp(x[i, j] - mx[i]), name="e")
    k2 = te.reduce_axis((0, 6), name="k")
    s = te.compute((4,), lambda i: te.sum(e[i, k2], axis=k2), name="s")
    y = te.compute((4, 6), lambda i, j: e[i, j] / s[i], name="y")
    return [x, y]


@case("lambda *i on 3-D, default name 'compute', int literal promoted to float")
def own_varargs_3d():
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute(A.shape, lambda *i: A(*i) * 2 + 1)
    return [A, B]


@case("lambda n, *rest: named first index, i0.. for the rest")
def own_mixed_varargs():
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute((2, 3, 4), lambda n, *r: A[n, r[0], r[1]] - A[n, 0, 0], name="B")
    return [A, B]


@case("symbolic shapes: te.var n, m")
def own_symbolic():
    n = te.var("n")
    m = te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    return [A, B]


@case("symbolic shape passed as a scalar parameter too")
def own_symbolic_param():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    return [A, n, B]


@case("symbolic shape expression: loop extent simplified, buffer shape kept")
def own_symbolic_expr():
    n = te.var("n")
    A2 = te.placeholder((n + 1,), name="A2")
    B2 = te.compute((n + 1 - 1,), lambda i: A2[i + 1], name="B2")
    return [A2, B2]


@case("int32 arithmetic: neg, floordiv, floormod, simplified")
def own_int_ops():
    A = te.placeholder((8,), name="Ai", dtype="int32")
    E = te.compute((8,), lambda i: -A[i] + A[i] // 3 + A[i] % 4 + (i + 0) * 1, name="E")
    return [A, E]


@case("int8 inputs, int32 output: casts")
def own_int8_cast():
    A = te.placeholder((4, 4), name="A", dtype="int8")
    B = te.compute((4, 4), lambda i, j: A[i, j].astype("int32") * A[j, i].astype("int32"), name="B")
    return [A, B]


@case("float64 and a Python float literal")
def own_f64():
    A = te.placeholder((8,), name="A", dtype="float64")
    B = te.compute((8,), lambda i: A[i] * 0.1 + 1, name="B")
    return [A, B]


@case("float16 times a Python float: promoted to float32")
def own_f16_promote():
    A = te.placeholder((8,), name="A", dtype="float16")
    B = te.compute((8,), lambda i: A[i] * 0.5 + 1, name="B")
    return [A, B]


@case("te.if_then_else padding with tvm.tir.any")
def own_pad_any():
    A = te.placeholder((4, 5), name="A")
    P = te.compute(
        (6, 7),
        lambda i, j: te.if_then_else(tir.any(i < 1, i >= 5, j < 1, j >= 6), 0.0, A[i - 1, j - 1]),
        name="P",
    )
    return [A, P]


@case("Select, comparison canonicalized by the simplifier")
def own_select():
    A = te.placeholder((4, 5), name="A")
    G = te.compute(
        (4, 5), lambda i, j: tir.Select(A[i, j] > 0, A[i, j], A[i, j] * 0.5), name="G"
    )
    return [A, G]


@case("boolean output")
def own_bool_out():
    A = te.placeholder((4, 5), name="A")
    H = te.compute((4, 5), lambda i, j: A[i, j] > 0.0, name="H")
    return [A, H]


@case("index arithmetic simplified: (i*5+j)//5 and i+2-2")
def own_index_simplify():
    A = te.placeholder((4, 5), name="A")
    I = te.compute((4, 5), lambda i, j: A[(i * 5 + j) // 5, (i * 5 + j) % 5], name="I")
    J = te.compute((2, 5), lambda i, j: I[i + 2 - 2, j + 0], name="J")
    return [A, J]


@case("constant body and index-expression body, no inputs")
def own_const_body():
    K = te.compute((4, 5), lambda i, j: 3.0, name="K")
    L = te.compute((4, 5), lambda i, j: i + j + K[i, j].astype("int32"), name="L")
    return [L]


@case("math intrinsics and a constant region read")
def own_intrinsics():
    A = te.placeholder((4, 5), name="A")
    B = te.compute(
        (4, 5),
        lambda i, j: te.sqrt(te.exp(A[i, j]) + te.log(A[0, 0]))
        - te.tanh(A[i, j]) * te.sigmoid(A[0, 1]) + te.abs(A[i, j]),
        name="B",
    )
    return [A, B]


@case("two computes named C: blocks C and C_1, buffers C and C_1")
def own_duplicate_names():
    A = te.placeholder((4, 5), name="A")
    C1 = te.compute((4, 5), lambda i, j: A[i, j] + 1, name="C")
    C2 = te.compute((4, 5), lambda i, j: C1[i, j] * 2, name="C")
    return [A, C2]


@case("name supply: C_1, C, C, C")
def own_name_supply():
    A = te.placeholder((4,), name="A")
    C1 = te.compute((4,), lambda i: A[i] + 1, name="C_1")
    C2 = te.compute((4,), lambda i: C1[i] + 1, name="C")
    C3 = te.compute((4,), lambda i: C2[i] + 1, name="C")
    C4 = te.compute((4,), lambda i: C3[i] + 1, name="C")
    return [A, C4]


@case("two outputs from one compute: BC.v0, BC.v1 in one loop nest")
def own_multi_output():
    A = te.placeholder((4, 5), name="A")
    B, C = te.compute((4, 5), lambda i, j: (A[i, j] + 1.0, A[i, j] * 2.0), name="BC")
    return [A, B, C]


@case("two outputs, only the second a parameter")
def own_multi_output_partial():
    A = te.placeholder((4, 5), name="A")
    B, C = te.compute((4, 5), lambda i, j: (A[i, j] + 1.0, A[i, j] * 2.0), name="BC")
    return [A, C]


@case("te.max / te.min reductions: identities are the type's extremes")
def own_max_min_reduce():
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((0, 5), "k")
    S = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name="S")
    k2 = te.reduce_axis((0, 5), "k")
    S2 = te.compute((4,), lambda i: te.min(A[i, k2], axis=k2), name="S2")
    return [A, S, S2]


@case("int32 max reduction")
def own_int_max_reduce():
    A = te.placeholder((4, 5), name="A", dtype="int32")
    k = te.reduce_axis((0, 5), "k")
    S = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name="S")
    return [A, S]


@case("reduce_axis with a nonzero start: loop range(1, 4)")
def own_reduce_nonzero_min():
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((1, 4), "k")
    S = te.compute((4,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="S")
    return [A, S]


@case("scalar output reducing over two axes")
def own_scalar_reduce():
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((0, 4), "k")
    l = te.reduce_axis((0, 5), "l")
    S = te.compute((), lambda: te.sum(A[k, l], axis=[k, l]), name="S")
    return [A, S]


@case("scalar output without a reduction: a vi iterator bound to 0")
def own_scalar_copy():
    A = te.placeholder((4,), name="A")
    S = te.compute((), lambda: A[2] * 3.0, name="S")
    return [A, S]


@case("where= is dropped by TVM 0.27's create_prim_func")
def own_where_dropped():
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((0, 5), "k")
    S = te.compute((4,), lambda i: te.sum(A[i, k], axis=k, where=k > 1), name="S")
    return [A, S]


@case("attrs become block annotations")
def own_attrs():
    A = te.placeholder((4, 5), name="A")
    D = te.compute(
        (4, 5), lambda i, j: A[i, j] + 1.0, name="D", tag="elemwise",
        attrs={"foo": 1, "schedule_rule": "bar"},
    )
    return [A, D]


@case("argmax: a two-value comm_reducer, let-bound updates")
def own_argmax():
    def fcombine(x, y):
        lhs = tir.Select((x[1] >= y[1]), x[0], y[0])
        rhs = tir.Select((x[1] >= y[1]), x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tir.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    M = te.placeholder((3, 4), name="M", dtype="float32")
    I = te.placeholder((3, 4), name="I", dtype="int32")
    k = te.reduce_axis((0, 4), "k")
    T0, T1 = te.compute((3,), lambda i: argmax((I[i, k], M[i, k]), axis=k), name="T")
    return [I, M, T0, T1]


@case("int64 shapes without override: Python compute keeps an int32 minimum")
def own_int64_shapes():
    A = te.placeholder((i64(4), i64(5)), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] + 1.0, name="B")
    return [A, B]


@case("index_dtype_override int64 on an int32 program with an index-valued body", "int64")
def own_override_iter_value():
    A = te.placeholder((4, 5), name="A", dtype="int32")
    B = te.compute((4, 5), lambda i, j: A[i, j] + i * 5 + j, name="B")
    return [A, B]


@case("index_dtype_override int64 on padding (conditions re-typed)", "int64")
def own_override_pad():
    A = te.placeholder((4, 5), name="A")
    P = te.compute(
        (6, 7),
        lambda i, j: tir.if_then_else(tir.all(i >= 1, i < 5, j >= 1, j < 6), A[i - 1, j - 1], 0.0),
        name="P",
    )
    return [A, P]


@case("placeholder missing from the arguments")
def own_missing_placeholder():
    A = te.placeholder((4,), name="A")
    C = te.compute((4,), lambda i: A[i] + 1.0, name="C")
    return [C]


@case("only placeholders: an empty body")
def own_only_placeholders():
    p = te.placeholder((2, 3), "int8", name="p")
    q = te.placeholder((4, 3), "int8", name="q")
    return [p, q]


# ----------------------------------------------------------------------------- topi


def tp(name, shape, dtype="float32"):
    return te.placeholder(shape, dtype, name=name)


@case("topi.add with broadcasting (2,3) + (3,)")
def topi_add():
    x, y = tp("x", (2, 3)), tp("y", (3,))
    return [x, y, topi.add(x, y)]


@case("topi.add with a Python float")
def topi_add_scalar():
    x = tp("x", (2, 3))
    return [x, topi.add(x, 1.0)]


@case("topi.subtract with the scalar on the left")
def topi_subtract_scalar_lhs():
    d = tp("d", (4, 3))
    return [d, topi.subtract(2.0, d)]


@case("topi.subtract")
def topi_subtract():
    x, y = tp("x", (2, 3)), tp("y", (3,))
    return [x, y, topi.subtract(x, y)]


@case("topi.multiply broadcasting size-1 dims (4,1,3) * (5,1)")
def topi_multiply_bcast():
    a, b = tp("a", (4, 1, 3)), tp("b", (5, 1))
    return [a, b, topi.multiply(a, b)]


@case("topi.divide")
def topi_divide():
    x, y = tp("x", (2, 3)), tp("y", (2, 1))
    return [x, y, topi.divide(x, y)]


@case("topi.divide of int32 tensors: truncating division")
def topi_divide_int():
    x, y = tp("x", (2, 3), "int32"), tp("y", (3,), "int32")
    return [x, y, topi.divide(x, y)]


@case("topi.multiply, symbolic against static dimension")
def topi_multiply_symbolic():
    m = te.var("m")
    c, d = tp("c", (m, 3)), tp("d", (4, 3))
    return [c, d, topi.multiply(c, d)]


@case("topi.nn.relu")
def topi_relu():
    x = tp("x", (2, 3))
    return [x, topi.nn.relu(x)]


@case("topi.nn.relu on int32")
def topi_relu_int():
    x = tp("x", (5,), "int32")
    return [x, topi.nn.relu(x)]


@case("topi.nn.dense")
def topi_dense():
    x, w = tp("x", (2, 3)), tp("w", (4, 3))
    return [x, w, topi.nn.dense(x, w)]


@case("topi.nn.dense with bias: a cast stage named compute, then T_add")
def topi_dense_bias():
    x, w, b = tp("x", (2, 3)), tp("w", (4, 3)), tp("b", (4,))
    return [x, w, b, topi.nn.dense(x, w, b)]


@case("topi.nn.dense int8 -> int32")
def topi_dense_int8():
    p, q = tp("p", (2, 3), "int8"), tp("q", (4, 3), "int8")
    return [p, q, topi.nn.dense(p, q, out_dtype="int32")]


@case("topi.nn.matmul (NN)")
def topi_nn_matmul():
    x, w = tp("x", (2, 3)), tp("w2", (3, 4))
    return [x, w, topi.nn.matmul(x, w)]


@case("topi.nn.matmul transpose_a, transpose_b")
def topi_nn_matmul_tt():
    x, w = tp("x", (3, 2)), tp("w", (4, 3))
    return [x, w, topi.nn.matmul(x, w, transpose_a=True, transpose_b=True)]


@case("topi.nn.matmul with batch dims broadcast (2,1,3,4) x (5,4,6)")
def topi_nn_matmul_batch():
    x, w = tp("x", (2, 1, 3, 4)), tp("w", (5, 4, 6))
    return [x, w, topi.nn.matmul(x, w)]


@case("topi.matmul")
def topi_matmul():
    x, w = tp("x", (2, 3)), tp("w2", (3, 4))
    return [x, w, topi.matmul(x, w)]


@case("topi.transpose default axes, 3-D")
def topi_transpose():
    a = tp("a", (4, 1, 3))
    return [a, topi.transpose(a)]


@case("topi.transpose with a negative axis")
def topi_transpose_axes():
    a = tp("a", (4, 1, 3))
    return [a, topi.transpose(a, (0, -1, 1))]


@case("topi.reshape (2,3) -> (3,2)")
def topi_reshape():
    x = tp("x", (2, 3))
    return [x, topi.reshape(x, (3, 2))]


@case("topi.reshape (2,3,4) -> (6,4)")
def topi_reshape_3d():
    x = tp("x", (2, 3, 4))
    return [x, topi.reshape(x, (6, 4))]


@case("topi.nn.softmax, last axis")
def topi_softmax():
    x = tp("x", (2, 3))
    return [x, topi.nn.softmax(x)]


@case("topi.nn.softmax, axis 0")
def topi_softmax_axis0():
    d = tp("d", (4, 3))
    return [d, topi.nn.softmax(d, axis=0)]


@case("topi.sum over axis 1")
def topi_sum():
    x = tp("x", (2, 3))
    return [x, topi.sum(x, axis=1)]


@case("topi.sum keepdims")
def topi_sum_keepdims():
    x = tp("x", (2, 3))
    return [x, topi.sum(x, axis=1, keepdims=True)]


@case("topi.sum of everything: a scalar")
def topi_sum_all():
    x = tp("x", (2, 3))
    return [x, topi.sum(x)]


@case("topi.sum over a negative axis")
def topi_sum_neg_axis():
    a = tp("a", (4, 1, 3))
    return [a, topi.sum(a, axis=-1)]


@case("topi.max over axis 0")
def topi_max():
    x = tp("x", (2, 3))
    return [x, topi.max(x, axis=0)]


@case("topi.max over two axes, keepdims")
def topi_max_keepdims():
    a = tp("a", (4, 1, 3))
    return [a, topi.max(a, axis=(0, 2), keepdims=True)]


@case("topi.argmax over axis 1: an (index, value) reduction, then its index")
def topi_argmax():
    x = tp("x", (3, 5))
    return [x, topi.argmax(x, axis=1)]


@case("topi.argmin over two axes, keepdims: the index is flat over both")
def topi_argmin_two_axes():
    a = tp("a", (2, 3, 4))
    return [a, topi.argmin(a, axis=(1, 2), keepdims=True)]


@case("topi.nn.conv2d_nchw, stride 1, padding 1")
def topi_conv2d():
    d, k = tp("data", (1, 3, 8, 8)), tp("kernel", (4, 3, 3, 3))
    return [d, k, topi.nn.conv2d_nchw(d, k, 1, 1, 1)]


@case("topi.nn.conv2d_nchw, stride 2, no padding: pad_temp is a copy")
def topi_conv2d_stride():
    d, k = tp("data", (1, 3, 8, 8)), tp("kernel", (4, 3, 3, 3))
    return [d, k, topi.nn.conv2d_nchw(d, k, 2, 0, 1)]


@case("topi.nn.conv2d_nchw, strides (1,2), 4-way padding, dilation 2")
def topi_conv2d_dilated():
    d, k = tp("data", (1, 3, 8, 8)), tp("kernel", (4, 3, 3, 3))
    return [d, k, topi.nn.conv2d_nchw(d, k, (1, 2), (1, 0, 2, 1), 2)]


@case("topi ops chained: relu(dense(x, w) + b) with int64 override", "int64")
def topi_chain_override():
    x, w, b = tp("x", (2, 3)), tp("w", (4, 3)), tp("b", (4,))
    return [x, w, b, topi.nn.relu(topi.add(topi.nn.dense(x, w), b))]


@case("topi.sum, topi.nn.softmax and topi.reshape with int64 override", "int64")
def topi_override_mix():
    x = tp("x", (2, 3))
    s = topi.nn.softmax(x)
    return [x, topi.sum(topi.reshape(s, (3, 2)), axis=0)]


@case("topi.add and topi.nn.relu on an int64 symbolic batch, int64 override (LegalizeOps)", "int64")
def topi_symbolic_int64():
    n = tir.Var("n", "int64")
    x, y = tp("x", (n, i64(3))), tp("y", (i64(3),))
    return [x, y, topi.nn.relu(topi.add(x, y))]


@case("int64 shapes without override: C++ and Python computes, reduce axes with an int32 minimum")
def topi_int64_no_override():
    x = tp("x", (i64(2), i64(3)))
    w = tp("w", (i64(4), i64(3)))
    s = topi.sum(topi.nn.dense(x, w), axis=1)
    return [x, w, topi.add(topi.nn.softmax(x), 1.0), s]


# ----------------------------------------------------------------------------- driver


def render(name):
    doc, f, override = CASES[name]
    src = textwrap.dedent(inspect.getsource(f))
    src = "\n".join(l for l in src.splitlines() if not l.startswith("@case("))
    out = [f"# {doc}", "### te", src.rstrip()]
    if override:
        out.append(f"# index_dtype_override: {override}")
    try:
        args = f()
        func = te.create_prim_func(args, override)
        out += ["### tvm", func.script().rstrip()]
        if name in SCHEDULES:
            sched = SCHEDULES[name]
            sch = tvm.s_tir.Schedule(tvm.IRModule({"main": func}))
            exec(sched.replace("get_block(", "get_sblock("), {"sch": sch})
            out += ["### schedule", sched, "### scheduled", sch.mod["main"].script().rstrip()]
    except Exception as e:  # noqa: BLE001
        lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()]
        lines = [l for l in lines if not l.startswith("#")]
        checks = [l for l in lines if "Check failed" in l]
        msg = (checks or lines or [type(e).__name__])[-1]
        msg = re.sub(r"\[\d\d:\d\d:\d\d\].*$", "", msg).strip()
        if "is false: " in msg:
            msg = msg.split("is false: ", 1)[1]
        out += ["### error", msg[:300]]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    names = a.cases or list(CASES)
    os.makedirs(OUT, exist_ok=True)
    bad = 0
    for name in names:
        if name not in CASES:
            print(f"unknown case {name}", file=sys.stderr)
            return 2
        text = render(name)
        path = os.path.join(OUT, f"{name}.txt")
        old = open(path).read() if os.path.exists(path) else None
        if a.check:
            if old != text:
                print(f"stale: {path}")
                bad += 1
        elif old != text:
            with open(path, "w") as fh:
                fh.write(text)
            print(f"wrote {path}")
    if not a.cases and not a.check:
        known = {f"{n}.txt" for n in CASES}
        for fn in os.listdir(OUT):
            if fn.endswith(".txt") and fn not in known:
                os.remove(os.path.join(OUT, fn))
                print(f"removed {fn}")
    print(f"te_goldens: {len(names) - bad} up to date, {bad} stale" if a.check else "done")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
