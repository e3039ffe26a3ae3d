# Negative case: `fuse` of a loop bound to a GPU thread axis: TVM fuses only loops without
# annotations or thread bindings.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Scale:
    @T.prim_func
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8, 32), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            for j in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] * T.float32(5)
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
sch.fuse(i, j)
# --- expect-error: has annotation or thread binding ---
# tessel-error: has annotation or thread binding
