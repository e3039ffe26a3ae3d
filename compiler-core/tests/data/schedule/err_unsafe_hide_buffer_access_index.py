# Negative case: `unsafe_hide_buffer_access` of a read region the block does not have.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Scale:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2)
# --- schedule ---
block = sch.get_block("B")
sch.unsafe_hide_buffer_access(block, "read", [0, 1])
# --- expect-error: should be a list of integers between 0 and 0 ---
