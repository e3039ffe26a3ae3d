# Negative case: `rolling_buffer` of a producer not computed at its consumer's loops (the lowest
# common ancestor of the two blocks is the root block, not a loop).
# tessel-error: should be tiled
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class TwoStages:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((16,), "float32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                C[vi] = B[vi] * T.float32(3)
# --- schedule ---
block_b = sch.get_block("B")
sch.rolling_buffer(block_b, 0)
# --- expect-error: lca ---
