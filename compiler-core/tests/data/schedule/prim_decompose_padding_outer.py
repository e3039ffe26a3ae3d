# Primitive case: `decompose_padding` of a 2-D padding at the outer loop: one fill nest over the
# whole 8x8 output, then the 6x6 copy of the in-bound part.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Padded2D:
    @T.prim_func
    def main(A: T.Buffer((6, 6), "float32"), B: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(8, 8):
            with T.block("pad"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.if_then_else(1 <= vi and vi < 7 and 1 <= vj and vj < 7,
                                           A[vi - 1, vj - 1], T.float32(0))
# --- schedule ---
pad = sch.get_block("pad")
i, j = sch.get_loops(pad)
fill = sch.decompose_padding(pad, i)
