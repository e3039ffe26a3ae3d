# Primitive case: `add_unit_loop` above a loop.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Add:
    @T.prim_func
    def main(A: T.Buffer((16, 32), "float32"),
             B: T.Buffer((16, 32), "float32"),
             C: T.Buffer((16, 32), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 32):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
# --- schedule ---
block = sch.get_block("C")
i, j = sch.get_loops(block)
u = sch.add_unit_loop(j)
