# Primitive case: `get_output_blocks` of the root block (only the block writing a parameter buffer).
# values: outputs
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MmRelu:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"),
             B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        Y = T.alloc_buffer((16, 16), dtype="float32")
        for i, j, k in T.grid(16, 16, 16):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
# --- schedule ---
root = sch.get_block("root")
outputs = sch.get_output_blocks(root)
