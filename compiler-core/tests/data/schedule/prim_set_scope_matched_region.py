# Primitive case: `set_scope` of a buffer the blocks only touch through `T.match_buffer` views
# of one element; the write region is inferred through the view.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Views:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((8, 16), dtype="float32")
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B_view = T.match_buffer(B[vi, vj], (), offset_factor=1)
                B_view[()] = A[vi, vj] + T.float32(3)
        for i, j in T.grid(8, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B_view = T.match_buffer(B[vi, vj], (), offset_factor=1)
                C[vi, vj] = B_view[()] * T.float32(2)
# --- schedule ---
b = sch.get_block("B")
sch.set_scope(b, 0, "shared")
