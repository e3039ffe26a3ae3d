# Primitive case: the book's blocking loop structure on a 16x16x16 matmul (small enough for the
# interpreter): `reorder(i0, j0, i1, j1, k0, k1, i2, j2)`.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"),
             B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(16, 16, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block_C = sch.get_block("C")
i, j, k = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(loop=i, factors=[None, 2, 4])
j0, j1, j2 = sch.split(loop=j, factors=[None, 2, 4])
k0, k1 = sch.split(loop=k, factors=[None, 4])
sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
