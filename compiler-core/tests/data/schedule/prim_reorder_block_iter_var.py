# Primitive case: `reorder_block_iter_var` puts a batched matmul's reduction iterator first, then
# the loops are split as usual (the iterators' order does not change the loops).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Bmm:
    @T.prim_func
    def main(A: T.Buffer((2, 8, 4), "float32"),
             B: T.Buffer((2, 4, 8), "float32"),
             C: T.Buffer((2, 8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for b, i, j, k in T.grid(2, 8, 8, 4):
            with T.block("C"):
                vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
                with T.init():
                    C[vb, vi, vj] = T.float32(0)
                C[vb, vi, vj] = C[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
# --- schedule ---
block = sch.get_block("C")
sch.reorder_block_iter_var(block, [3, 1, 0, 2])
b, i, j, k = sch.get_loops(block)
j0, j1 = sch.split(j, factors=[None, 4])
sch.enter_postproc()
