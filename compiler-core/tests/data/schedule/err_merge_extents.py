# Negative case: `merge` of loops with different extents.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class TwoOutputs:
    @T.prim_func
    def main(A: T.Buffer((16, 8), "float32"),
             B: T.Buffer((16, 8), "float32"),
             C: T.Buffer((16, 4), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(16, 4):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj * 2] + T.float32(1)
# --- schedule ---
block_b = sch.get_block("B")
block_c = sch.get_block("C")
ib, jb = sch.get_loops(block_b)
ic, jc = sch.get_loops(block_c)
merged = sch.merge(jb, jc)
# --- expect-error: extent ---
