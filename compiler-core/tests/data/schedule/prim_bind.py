# Primitive case: `bind` of split loops to blockIdx.x / threadIdx.x.
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
i, = sch.get_loops(block)
bx, tx = sch.split(i, factors=[None, 4])
sch.bind(bx, "blockIdx.x")
sch.bind(tx, "threadIdx.x")
