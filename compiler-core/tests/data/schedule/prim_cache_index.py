# Primitive case: `cache_index` of a block that gathers from two buffers with computed indices:
# both index expressions are precomputed by stages `index_0` (the larger) and `index_1`.
# hand-written: TVM 0.27's result differs from this golden in two places only (see cache_index.rs): its block `B` loads index_var_0/1 without declaring them in T.reads, and its index buffers carry strides=(1,)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Gather:
    @T.prim_func
    def main(A: T.Buffer((72,), "float32"),
             W: T.Buffer((48,), "float32"),
             B: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi * 8 + vj * 2 + 1] + W[vi * 5 + vj]
# --- schedule ---
block_b = sch.get_block("B")
stages = sch.cache_index(block_b, "global")
