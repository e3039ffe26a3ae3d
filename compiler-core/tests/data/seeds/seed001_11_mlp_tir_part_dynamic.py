# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §3.4, lines 1609-1640: the two T.prim_func
#   functions (relu0, linear0) of MyModule.
# DERIVED, not verbatim: the seed's MyModule also contains `@R.function def main(...)` (Relax, lines
#   1644-1665), so the module as a whole is listed in SKIPPED.md. This file keeps the module with only
#   its TensorIR part, because it is the seeds' only example of `T.handle` + `T.match_buffer` with
#   symbolic `T.int64()` sizes. The `linear0` of MyModuleMixture (§3.7, lines 2027-2050) is identical
#   to the `linear0` here and is covered by this file.
# Fixes: none inside the two functions.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(x: T.handle,
                w: T.handle,
                b: T.handle,
                z: T.handle):
        m, n, k = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n, ), "float32")
        Z = T.match_buffer(z, (1, n), "float32")
        Y = T.alloc_buffer((1, n), "float32")
        for i, j, k in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]
