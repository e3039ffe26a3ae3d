# Negative case: `reorder` over a loop bound with a stride (`vj = j * 4`): the binding is
# quasi-affine but not an affine iter map with unit scale, so TVM refuses.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Strided:
    @T.prim_func
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 8):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(32, j * 4)
                B[vi, vj] = A[vi, vj] * T.float32(3)
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
sch.reorder(j, i)
# --- expect-error: is required to have an affine binding ---
# tessel-error: is required to have an affine binding
