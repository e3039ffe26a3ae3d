# Negative case: `decompose_padding` of a block whose store is not a `T.if_then_else` (nothing is
# padded).
# tessel-error: not a padding block
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Copy:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            with T.block("copy"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)
# --- schedule ---
copy = sch.get_block("copy")
(i,) = sch.get_loops(copy)
fill = sch.decompose_padding(copy, i)
# --- expect-error: padding ---
