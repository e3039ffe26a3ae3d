# Negative case: `rolling_buffer` of an output block (its buffer is a parameter).
# tessel-error: output block
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
                B[vi] = A[vi] + T.float32(1)
# --- schedule ---
block_b = sch.get_block("B")
sch.rolling_buffer(block_b, 0)
# --- expect-error: output block ---
