# Primitive case: `rolling_buffer` of a 3-wide window sum computed at the tiles of its consumer (a
# 2-wide window sum): each tile of 3 outputs needs 4 values of B, one shared with the previous
# tile, so B shrinks to 4 values indexed modulo 4 and the shared value is not recomputed.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Windows:
    @T.prim_func
    def main(A: T.Buffer((12,), "float32"), C: T.Buffer((9,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((10,), "float32")
        for i in range(10):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
        for i in range(9):
            with T.block("C"):
                vi = T.axis.spatial(9, i)
                C[vi] = B[vi] + B[vi + 1]
# --- schedule ---
block_b = sch.get_block("B")
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
io, ii = sch.split(i, factors=[3, 3])
sch.compute_at(block_b, io)
sch.rolling_buffer(block_b, 0)
