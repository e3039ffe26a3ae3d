# book 2.5.2 exercise 3 (bmm_relu): the target module's loop structure, reached with compute_at of Y
# under the split C loop. The book's target continues with decompose_reduction (left out: Tessel's
# decompose_reduction does not re-infer the update block's reads yet).
from tvm.script import tir as T
@T.prim_func
def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")):
    T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": True})
    Y = T.alloc_buffer((16, 128, 128))
    for n, i, j, k in T.grid(16, 128, 128, 128):
        with T.block("Y"):
            vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
            with T.init():
                Y[vn, vi, vj] = T.float32(0)
            Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
    for n, i, j in T.grid(16, 128, 128):
        with T.block("C"):
            vn, vi, vj = T.axis.remap("SSS", [n, i, j])
            C[vn, vi, vj] = T.max(Y[vn, vi, vj], T.float32(0))
# --- schedule
Y = sch.get_block("Y", "bmm_relu")
C = sch.get_block("C", "bmm_relu")
i0, i1, i2 = sch.get_loops(C)
i2_0, i2_1 = sch.split(i2, [None, 8])
sch.compute_at(Y, i2_0)
l0, l1, l2, ax0, ax1 = sch.get_loops(Y)
ax1_0, ax1_1 = sch.split(ax1, [None, 4])
sch.reorder(ax1_0, ax1_1, ax0)
sch.parallel(i0)
sch.vectorize(i2_1)
sch.unroll(ax1_1)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        Y = T.alloc_buffer((16, 128, 128))
        for n in T.parallel(16):
            for i, j_0 in T.grid(128, 16):
                for ax1_0 in range(32):
                    for ax1_1 in T.unroll(4):
                        for ax0 in range(8):
                            with T.block("Y"):
                                vn, vi = T.axis.remap("SS", [n, i])
                                vj = T.axis.spatial(128, j_0 * 8 + ax0)
                                vk = T.axis.reduce(128, ax1_0 * 4 + ax1_1)
                                T.reads(A[vn, vi, vk], B[vn, vk, vj])
                                T.writes(Y[vn, vi, vj])
                                with T.init():
                                    Y[vn, vi, vj] = T.float32(0.0)
                                Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
                for j_1 in T.vectorized(8):
                    with T.block("C"):
                        vn, vi = T.axis.remap("SS", [n, i])
                        vj = T.axis.spatial(128, j_0 * 8 + j_1)
                        T.reads(Y[vn, vi, vj])
                        T.writes(C[vn, vi, vj])
                        C[vn, vi, vj] = T.max(Y[vn, vi, vj], T.float32(0.0))
# --- trace
# b0 = sch.get_block(name="Y", func_name="bmm_relu")
# b1 = sch.get_block(name="C", func_name="bmm_relu")
# l2, l3, l4 = sch.get_loops(block=b1)
# l5, l6 = sch.split(loop=l4, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
# sch.compute_at(block=b0, loop=l5, preserve_unit_loops=False, index=-1)
# l7, l8, l9, l10, l11 = sch.get_loops(block=b0)
# l12, l13 = sch.split(loop=l11, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
# sch.reorder(l12, l13, l10)
# sch.parallel(loop=l2)
# sch.vectorize(loop=l6)
# sch.unroll(loop=l13)
