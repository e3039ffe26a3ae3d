# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §4.6, lines 3201-3221: the T.prim_func
#   `linear0` (static shapes) of MyModuleMixture.
# DERIVED, not verbatim: the seed's MyModuleMixture also contains `@R.function def main(...)` (Relax,
#   lines 3223-3242), so the module as a whole is listed in SKIPPED.md; this file keeps only its
#   TensorIR part.
# Fixes: none inside the function.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleMixture:
    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"),
                W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"),
                Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]
