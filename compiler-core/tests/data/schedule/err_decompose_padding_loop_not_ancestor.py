# Negative case: `decompose_padding` at a loop of another nest, which does not enclose the block.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class PadThenScale:
    @T.prim_func
    def main(A: T.Buffer((6,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((8,), "float32")
        for i in range(8):
            with T.block("pad"):
                vi = T.axis.spatial(8, i)
                B[vi] = T.if_then_else(1 <= vi and vi < 7, A[vi - 1], T.float32(0))
        for i in range(8):
            with T.block("scale"):
                vi = T.axis.spatial(8, i)
                C[vi] = B[vi] * T.float32(3)
# --- schedule ---
pad = sch.get_block("pad")
scale = sch.get_block("scale")
(i,) = sch.get_loops(scale)
fill = sch.decompose_padding(pad, i)
# --- expect-error: ancestor ---
# tessel-error: not an ancestor
