# Negative case: `reorder` of loops under a block whose `T.where` bounds the fused loops
# (`i * 8 + j < 100`) rather than one of its bindings: not an affine binding for TVM.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Masked:
    @T.prim_func
    def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 8):
            with T.block("B"):
                T.where(i * 8 + j < 100)
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(2)
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
sch.reorder(j, i)
# --- expect-error: is required to have an affine binding ---
# tessel-error: is required to have an affine binding
