# expect: error: Python's builtin `max(...)` applied to a TIR expression (`max(Y[i, j], 0)`); it needs a truth value of a PrimExpr. TensorIR spells it `T.max(...)`
#   Moved here from seeds/: TVM rejects this seed program even in its original form (see below).
# TVM 0.27: rejected at parse: DiagnosticError: error: Cannot use and / or / not operator to Expr, hint: use tvm.tirx.all / tvm.tirx.any, if it is None checking, use node is not None [underlined: `max(Y[i, j], 0)`]
# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.4.3, lines 403-421: the "side-by-side"
#   MyModule whose body is written like the low-level numpy code (plain loops, `if k == 0`, Python `max`).
# Fixes: none.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i in range(128):
            for j in range(128):
                for k in range(128):
                    if k == 0:
                        Y[i, j] = 0
                    Y[i, j] = Y[i, j] + A[i, k] * B[k, j]
        for i in range(128):
            for j in range(128):
                C[i, j] = max(Y[i, j], 0)
