# Primitive case: `blockize` below a unit outer loop with `preserve_unit_iters=True`: the outer
# block's iterator stays bound to the unit loop (`vi_o = i0`), as TVM keeps it.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Tiles:
    @T.prim_func
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8, 32), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i0, j0, i1, j1 in T.grid(1, 4, 8, 8):
            with T.block("B"):
                vi = T.axis.spatial(8, i0 * 8 + i1)
                vj = T.axis.spatial(32, j0 * 8 + j1)
                B[vi, vj] = A[vi, vj] - T.float32(4)
# --- schedule ---
block = sch.get_block("B")
i0, j0, i1, j1 = sch.get_loops(block)
outer = sch.blockize(i1, preserve_unit_iters=True)
