# Negative case: `annotate_buffer_access` of a write region the block does not have.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Window:
    @T.prim_func
    def main(A: T.Buffer((16, 18), "float32"), B: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj + 1] * T.float32(2)
# --- schedule ---
block = sch.get_block("B")
sch.annotate_buffer_access(block, 1, "write", lambda vi, vj: [(vi, vi + 1), (vj, vj + 1)])
# --- expect-error: is required to be in [0, 1) ---
