# The schedule of book_bmm_relu_exercise with its two subscripts (`sch.get_loops(Y)[-2:]`,
# `sch.get_loops(Y_init)[-1]`) written as full unpacking, so that it does not depend on
# subscript support in schedule scripts. Same target (the book's TargetModule).
# target: ../seeds/seed001_10_bmm_relu_target.py
# numerics: skip (16x128x128x128 multiply-adds)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyBmmRelu:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"),
                 B: T.Buffer((16, 128, 128), "float32"),
                 C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((16, 128, 128), dtype="float32")
        for i0, i1, i2, i3 in T.grid(16, 128, 128, 128):
            with T.block("Y"):
                n, i, j, k = T.axis.remap("SSSR", [i0, i1, i2, i3])
                with T.init():
                    Y[n, i, j] = T.float32(0)
                Y[n, i, j] = Y[n, i, j] + A[n, i, k] * B[n, k, j]
        for i0, i1, i2 in T.grid(16, 128, 128):
            with T.block("C"):
                n, i, j = T.axis.remap("SSS", [i0, i1, i2])
                C[n, i, j] = T.max(Y[n, i, j], T.float32(0))
# --- schedule ---
Y = sch.get_block("Y", func_name="bmm_relu")
C = sch.get_block("C", func_name="bmm_relu")
b, i, j = sch.get_loops(C)
j0, j1 = sch.split(j, factors=[None, 8])
sch.compute_at(Y, j0)
_b, _i, _j0, ax0, ax1 = sch.get_loops(Y)
k0, k1 = sch.split(ax1, factors=[None, 4])
sch.reorder(k0, k1, ax0)
sch.parallel(b)
sch.unroll(k1)
sch.vectorize(j1)
Y_init = sch.decompose_reduction(Y, k0)
_b, _i, _j0, ax0_init = sch.get_loops(Y_init)
sch.vectorize(ax0_init)
