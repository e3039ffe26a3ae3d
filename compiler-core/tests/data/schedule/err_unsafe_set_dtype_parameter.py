# Negative case: `unsafe_set_dtype` of a function parameter (only a buffer a block allocates may
# change its type).
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
sch.unsafe_set_dtype(block, 0, "float16")
# --- expect-error: is not allocated by a block ---
