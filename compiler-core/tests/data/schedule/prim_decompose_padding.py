# Primitive case: `decompose_padding` of a zero-padded copy (a 1-D signal of 12 samples padded by 2
# on each side to 16) at its only loop: a fill block writes 0 everywhere, then the copy block
# writes the 12 in-bound samples; `can_decompose_padding` answers before and after.
# values: before, after
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class PaddedSum:
    @T.prim_func
    def main(A: T.Buffer((12,), "float32"), C: T.Buffer((14,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        P = T.alloc_buffer((16,), "float32")
        for i in range(16):
            with T.block("pad"):
                vi = T.axis.spatial(16, i)
                P[vi] = T.if_then_else(2 <= vi and vi < 14, A[vi - 2], T.float32(0))
        for i in range(14):
            with T.block("sum"):
                vi = T.axis.spatial(14, i)
                C[vi] = P[vi] + P[vi + 1] + P[vi + 2]
# --- schedule ---
pad = sch.get_block("pad")
(i,) = sch.get_loops(pad)
before = sch.can_decompose_padding(pad, i)
fill = sch.decompose_padding(pad, i)
after = sch.can_decompose_padding(pad, i)
