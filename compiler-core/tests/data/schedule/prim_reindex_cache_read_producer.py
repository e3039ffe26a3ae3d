# Primitive case: `reindex_cache_read` of an intermediate buffer: the copy goes between its
# producer and the consumer, inside the loop they share after `compute_at`.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Chain:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((8, 16), dtype="float32")
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(8, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule ---
block_b = sch.get_block("B")
block_c = sch.get_block("C")
i, j = sch.get_loops(block_c)
sch.compute_at(block_b, i)
B_local = sch.reindex_cache_read(block_c, 0, "local", lambda i, j: (j // 4, i, j % 4))
