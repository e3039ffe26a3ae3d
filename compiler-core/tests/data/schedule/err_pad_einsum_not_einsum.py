# Negative case: `pad_einsum` of a 1-D convolution, whose input index `vi + vk` is not one iterator.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Conv1D:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), W: T.Buffer((3,), "float32"),
             C: T.Buffer((14,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(14, 3):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi + vk] * W[vk]
# --- schedule ---
block_c = sch.get_block("C")
sch.pad_einsum(block_c, [16, 4])
# --- expect-error: einsum ---
# tessel-error: not an einsum
