# Primitive case: `read_at` and `write_at` at the second loop of a 4x4-tiled elementwise block:
# each 4x4 tile of A is copied into A_shared before the tile is computed, and the tile of B is
# computed into B_local and written back after; the consumer C still reads B.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Tiled:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i0, j0, i1, j1 in T.grid(4, 4, 4, 4):
            with T.block("B"):
                vi = T.axis.spatial(16, i0 * 4 + i1)
                vj = T.axis.spatial(16, j0 * 4 + j1)
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule ---
block_b = sch.get_block("B")
i0, j0, i1, j1 = sch.get_loops(block_b)
a_shared = sch.read_at(j0, block_b, 0, "shared")
b_local = sch.write_at(j0, block_b, 0, "local")
