# Primitive case: two non-divisible splits of one block's loops: the second split's guard is
# appended after the first one's in the block's `T.where`, as TVM orders them.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Clip:
    @T.prim_func
    def main(A: T.Buffer((10, 14), "float32"), B: T.Buffer((10, 14), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(10, 14):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.min(A[vi, vj], T.float32(6))
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 4])
