# Negative case: `pad_einsum` with two factors for a block of three iterators.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((14, 10), "float32"), B: T.Buffer((10, 6), "float32"),
             C: T.Buffer((14, 6), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(14, 6, 10):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block_c = sch.get_block("C")
sch.pad_einsum(block_c, [16, 8])
# --- expect-error: padding ---
# tessel-error: has 2 factors
