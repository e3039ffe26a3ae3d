# Primitive case: `set_scope` of an intermediate buffer.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Chain:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"),
             D: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((16, 16), dtype="float32")
        C = T.alloc_buffer((16, 16), dtype="float32")
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)
        for i, j in T.grid(16, 16):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))
# --- schedule ---
B = sch.get_block("B")
sch.set_scope(B, 0, "shared")
