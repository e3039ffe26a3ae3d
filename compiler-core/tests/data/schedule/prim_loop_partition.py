# Primitive case: `loop_partition` of the outer loop of an elementwise nest into three pieces, the
# first one inferred (7, 4 and 3 rows of 14); the inner loop of the first piece is split after.
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
                B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
# --- schedule ---
block_b = sch.get_block("B")
i, j = sch.get_loops(block_b)
i0, i1, i2 = sch.loop_partition(i, [None, 4, 3])
block_b0 = sch.get_block("B_i0")
i0_, j0 = sch.get_loops(block_b0)
j0o, j0i = sch.split(j0, factors=[None, 4])
