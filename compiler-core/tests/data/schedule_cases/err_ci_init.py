# compute_inline of a reduction block
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((128,))
    for i, k in T.grid(128, 128):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- error: The block has init statement
# TVM 0.27: ScheduleError: The block has init statement: s_tir.SBlock#0
