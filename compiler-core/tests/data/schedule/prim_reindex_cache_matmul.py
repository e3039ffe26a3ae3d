# Primitive case: `reindex_cache_read` and `reindex_cache_write` on one matmul: A is cached in
# shared memory transposed (indexed by the block's (k, i)), C accumulates in a local buffer indexed
# (j, i) and is copied back after the loops.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((16, 32), "float32"),
             B: T.Buffer((32, 8), "float32"),
             C: T.Buffer((16, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(16, 8, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block = sch.get_block("C")
A_shared = sch.reindex_cache_read(block, 0, "shared", lambda i, j, k: (k, i))
C_local = sch.reindex_cache_write(block, 0, "local", lambda i, j, k: (j, i))
