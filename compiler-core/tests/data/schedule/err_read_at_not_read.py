# Negative case: `read_at` at a loop whose body does not read the buffer (the consumer's loop, for a
# buffer only the producer reads). TVM 0.27 stops on an internal check; Tessel says why.
# tessel-error: reads `A`
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
block_c = sch.get_block("C")
(ic,) = sch.get_loops(block_c)
copy = sch.read_at(ic, block_b, 0, "shared")
# --- expect-error: Check failed ---
