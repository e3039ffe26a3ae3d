# Primitive case: `split` with `disable_predication=True` (the factors divide the extent, so no
# guard is needed; the trace keeps the option).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Relu:
    @T.prim_func
    def main(A: T.Buffer((4, 96), "float32"), B: T.Buffer((4, 96), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(4, 96):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
j0, j1 = sch.split(j, factors=[None, 16], disable_predication=True)
