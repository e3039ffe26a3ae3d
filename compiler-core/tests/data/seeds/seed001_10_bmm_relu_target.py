# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.5.2 "Exercise 3", lines 1282-1310:
#   TargetModule (the bmm_relu schedule target).
# Fixes: (1) two lines wrapped by the PDF extraction (marked with a wrap arrow) were re-joined: the
#   `def bmm_relu(...)` signature and the `Y[n, i, j] = ... B[n, k, j]` update statement.
#   (2) the PDF extraction indented the `for ax1_0` and `for i2_1` loop nests one level too deep (inside
#   `for ax0_init`); they are restored as siblings of `for ax0_init` (inside `for i1, i2_0`), as in the
#   course notebook this book is built from, and as the decompose_reduction/reverse_compute_at
#   schedule of the exercise produces.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class TargetModule:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")) -> None:
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": True})
        Y = T.alloc_buffer([16, 128, 128], dtype="float32")
        for i0 in T.parallel(16):
            for i1, i2_0 in T.grid(128, 16):
                for ax0_init in T.vectorized(8):
                    with T.block("Y_init"):
                        n, i = T.axis.remap("SS", [i0, i1])
                        j = T.axis.spatial(128, i2_0 * 8 + ax0_init)
                        Y[n, i, j] = T.float32(0)
                for ax1_0 in T.serial(32):
                    for ax1_1 in T.unroll(4):
                        for ax0 in T.serial(8):
                            with T.block("Y_update"):
                                n, i = T.axis.remap("SS", [i0, i1])
                                j = T.axis.spatial(128, i2_0 * 8 + ax0)
                                k = T.axis.reduce(128, ax1_0 * 4 + ax1_1)
                                Y[n, i, j] = Y[n, i, j] + A[n, i, k] * B[n, k, j]
                for i2_1 in T.vectorized(8):
                    with T.block("C"):
                        n, i = T.axis.remap("SS", [i0, i1])
                        j = T.axis.spatial(128, i2_0 * 8 + i2_1)
                        C[n, i, j] = T.max(Y[n, i, j], T.float32(0))
