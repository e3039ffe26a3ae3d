# Primitive case: `rolling_buffer` of a 2-D producer computed at the row tiles of a 3x3 box sum:
# the rows roll (4 rows kept, 2 shared between tiles), the columns stay whole.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Box:
    @T.prim_func
    def main(A: T.Buffer((10, 6), "float32"), C: T.Buffer((8, 4), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((10, 6), "float32")
        for i, j in T.grid(10, 6):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j, di, dj in T.grid(8, 4, 3, 3):
            with T.block("C"):
                vi, vj, vdi, vdj = T.axis.remap("SSRR", [i, j, di, dj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + B[vi + vdi, vj + vdj]
# --- schedule ---
block_b = sch.get_block("B")
block_c = sch.get_block("C")
i, j, di, dj = sch.get_loops(block_c)
io, ii = sch.split(i, factors=[4, 2])
sch.compute_at(block_b, io)
sch.rolling_buffer(block_b, 0)
