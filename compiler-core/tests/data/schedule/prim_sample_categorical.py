# Primitive case: `sample_categorical` with a fixed decision, its value used as a split factor.
# values: v
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
v = sch.sample_categorical(candidates=[2, 4, 8], probs=[0.25, 0.5, 0.25], decision=2)
j0, j1 = sch.split(j, factors=[None, v])
