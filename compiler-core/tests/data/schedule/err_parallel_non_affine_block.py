# Negative case: `parallel` of a loop over a block whose other binding is not affine
# (`vk = k * k // 4`): TVM parallelizes only loops whose blocks all have affine bindings.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Squares:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(16, 8):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                vk = T.axis.reduce(16, k * k // 4)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
# --- schedule ---
block = sch.get_block("B")
i, k = sch.get_loops(block)
sch.parallel(i)
# --- expect-error: does not have compact dataflow ---
# tessel-error: is required to have an affine binding
