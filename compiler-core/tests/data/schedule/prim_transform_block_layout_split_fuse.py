# Primitive case: `transform_block_layout` splits one block's iterator in two and fuses another
# block's two iterators into one.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Chain:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((64,), dtype="float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] * T.float32(3)
        for i, j in T.grid(8, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vj * 8 + vi] + T.float32(1)
# --- schedule ---
block_b = sch.get_block("B")
sch.transform_block_layout(block_b, lambda i: (i // 8, i % 8))
block_c = sch.get_block("C")
sch.transform_block_layout(block_c, lambda i, j: (j * 8 + i,))
