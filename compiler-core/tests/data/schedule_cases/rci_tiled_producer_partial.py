# the producer fills 8x8 tiles of B; the consumer reads a 60x60 corner through tile and offset
# indices (60 is not a multiple of 8): the producer writes C where the tile point lies in the corner
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((60, 60), "float32")):
    B = T.alloc_buffer((8, 8, 8, 8))
    for t0, t1, e0, e1 in T.grid(8, 8, 8, 8):
        with T.block("B"):
            vt0, vt1, ve0, ve1 = T.axis.remap("SSSS", [t0, t1, e0, e1])
            B[vt0, vt1, ve0, ve1] = A[vt0 * 8 + ve0, vt1 * 8 + ve1] + T.float32(3)
    for i, j in T.grid(60, 60):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi // 8, vj // 8, vi % 8, vj % 8] * T.float32(0.5)
# --- schedule
sch.reverse_compute_inline(sch.get_block("C"))
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((60, 60), "float32")):
        # with T.block("root"):
        for t0, t1, e0, e1 in T.grid(8, 8, 8, 8):
            with T.block("B"):
                vt0, vt1, ve0, ve1 = T.axis.remap("SSSS", [t0, t1, e0, e1])
                T.where(t0 * 8 + e0 < 60 and t1 * 8 + e1 < 60)
                T.reads(A[vt0 * 8 + ve0, vt1 * 8 + ve1])
                T.writes(C[ve0 + vt0 * 8, ve1 + vt1 * 8])
                C[ve0 + vt0 * 8, ve1 + vt1 * 8] = (A[vt0 * 8 + ve0, vt1 * 8 + ve1] + T.float32(3.0)) * T.float32(0.5)
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# sch.reverse_compute_inline(block=b0)
