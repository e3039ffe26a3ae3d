# Primitive case: `add_unit_loop` above a block.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class VecAdd:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"),
             B: T.Buffer((16,), "float32"),
             C: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                C[vi] = A[vi] + B[vi]
# --- schedule ---
block = sch.get_block("C")
u = sch.add_unit_loop(block)
