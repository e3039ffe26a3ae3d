# Primitive case: `get_output_blocks` of the root after `blockize`: the outer block and the block
# nested in it both write the parameter buffer, so both are outputs (TVM looks into nested blocks).
# values: outputs
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Shift:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((8, 16), dtype="float32")
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] - T.float32(1)
        for i, j in T.grid(8, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] * B[vi, vj]
# --- schedule ---
c = sch.get_block("C")
i, j = sch.get_loops(c)
c_outer = sch.blockize(j)
root = sch.get_block("root")
outputs = sch.get_output_blocks(root)
