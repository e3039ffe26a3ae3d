# Primitive case: `cache_index` with `cse_thresh=2`: `vi * 8 + vj` is computed twice and once more
# inside `vi * 8 + vj + 1` (which, seen once, gives way to it); `vj * 3 + 1` twice; the stage of
# the consumer `C` follows the producer `B`'s nest.
# hand-written: TVM 0.27's result differs from this golden in two places only (see cache_index.rs): its block `C` loads index_var_0/1 without declaring them in T.reads, and its index buffers carry strides=(1,)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Twice:
    @T.prim_func
    def main(A: T.Buffer((72,), "float32"),
             W: T.Buffer((24,), "float32"),
             C: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((72,), "float32")
        for i in range(72):
            with T.block("B"):
                vi = T.axis.spatial(72, i)
                B[vi] = A[vi] * T.float32(2)
        for i, j in T.grid(8, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi * 8 + vj] * B[vi * 8 + vj] + W[vj * 3 + 1] * W[vj * 3 + 1] + B[vi * 8 + vj + 1]
# --- schedule ---
block_c = sch.get_block("C")
stages = sch.cache_index(block_c, "global", cse_thresh=2)
