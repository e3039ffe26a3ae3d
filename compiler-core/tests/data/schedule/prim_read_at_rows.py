# Primitive case: `read_at` at the outer loop of a row-blocked matmul: the rows of A a block of
# rows uses are copied once per block of rows (the copy's region depends on the outer loop only).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 4), "float32"),
             C: T.Buffer((8, 4), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i0, i1, j, k in T.grid(2, 4, 4, 6):
            with T.block("C"):
                vi = T.axis.spatial(8, i0 * 4 + i1)
                vj, vk = T.axis.remap("SR", [j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block_c = sch.get_block("C")
i0, i1, j, k = sch.get_loops(block_c)
a_local = sch.read_at(i0, block_c, 0, "local")
b_global = sch.read_at(j, block_c, 1, "global")
