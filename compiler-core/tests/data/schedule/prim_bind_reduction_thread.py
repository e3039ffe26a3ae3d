# Primitive case: `bind` of a reduction loop to threadIdx.x is allowed (a cross-thread reduction).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class RowSum:
    @T.prim_func
    def main(A: T.Buffer((16, 64), "float32"),
             B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(16, 64):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
# --- schedule ---
block = sch.get_block("B")
i, k = sch.get_loops(block)
sch.bind(k, "threadIdx.x")
