# Negative case: `split` of a loop that starts at 4: TVM splits only loops starting at 0.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Tail:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(4, 64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
# --- schedule ---
block = sch.get_block("B")
i, = sch.get_loops(block)
sch.split(i, factors=[None, 4])
# --- expect-error: does not start with 0 ---
# tessel-error: does not start with 0
