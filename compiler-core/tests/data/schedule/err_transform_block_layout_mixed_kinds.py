# Negative case: `transform_block_layout` with a result that mixes a spatial and a reduction
# iterator.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"),
             B: T.Buffer((16, 4), "float32"),
             C: T.Buffer((8, 4), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(8, 4, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block = sch.get_block("C")
sch.transform_block_layout(block, lambda i, j, k: (i * 16 + k, j))
# --- expect-error: more than one type of original iter vars ---
