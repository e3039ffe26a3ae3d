# Negative case: `loop_partition` factors that add up to the loop's extent (the rest must be
# non-empty even without a `None`).
# tessel-error: larger than or equal to the extent
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Scale:
    @T.prim_func
    def main(A: T.Buffer((14, 8), "float32"), B: T.Buffer((14, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(14, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
# --- schedule ---
block_b = sch.get_block("B")
i, j = sch.get_loops(block_b)
parts = sch.loop_partition(j, [3, 5])
# --- expect-error: larger than or equal to the extent ---
