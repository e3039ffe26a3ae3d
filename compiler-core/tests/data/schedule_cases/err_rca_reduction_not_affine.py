# a reduction block whose binding is not affine is neither complete nor a reduction block
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, k in T.grid(128, 128):
        with T.block("C"):
            vi = T.axis.spatial(128, (i * i) % 128)
            vk = T.axis.reduce(128, k)
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi, vk]
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(b)
sch.reverse_compute_at(c, i)
# --- error: The block is not a reduction block either - it violates condition #2
# TVM 0.27: The block s_tir.SBlock#0 is not a complete block - it violates condition #1.
