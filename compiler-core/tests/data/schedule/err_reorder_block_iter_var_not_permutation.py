# Negative case: `reorder_block_iter_var` with an order that repeats an iterator.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Add:
    @T.prim_func
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
# --- schedule ---
block = sch.get_block("B")
sch.reorder_block_iter_var(block, [1, 1])
# --- expect-error: is not a valid permutation ---
