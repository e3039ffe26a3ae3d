# Negative case: `decompose_padding` where the value outside the bounds reads a buffer (edge
# replication): a fill block could not write it before the copy.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class EdgePad:
    @T.prim_func
    def main(A: T.Buffer((6,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            with T.block("pad"):
                vi = T.axis.spatial(8, i)
                B[vi] = T.if_then_else(1 <= vi and vi < 7, A[vi - 1], A[0])
# --- schedule ---
pad = sch.get_block("pad")
(i,) = sch.get_loops(pad)
fill = sch.decompose_padding(pad, i)
# --- expect-error: padding ---
# tessel-error: must be a constant
