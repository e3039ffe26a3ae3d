# The book's 128×128×128 matmul (MLC §4.5) with an empty schedule: open
# Tune in the Run pane to search for a fast one, then Apply it.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"),
             B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

# --- schedule ---
sch = tvm.tir.Schedule(MyModule)
