# `reorder` below a loop whose variable enters a binding non-affinely (`r * r + c`): the loops
# reordered (`c`, `j`) are affine in the binding once `r` counts as a constant, so TVM accepts.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Gather:
    @T.prim_func
    def main(A: T.Buffer((24, 8), "float32"), B: T.Buffer((24, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for r, c, j in T.grid(4, 8, 8):
            with T.block("B"):
                vi = T.axis.spatial(24, r * r + c)
                vj = T.axis.spatial(8, j)
                B[vi, vj] = A[vi, vj] + T.float32(1)
# --- schedule ---
block = sch.get_block("B")
r, c, j = sch.get_loops(block)
sch.reorder(j, c)
