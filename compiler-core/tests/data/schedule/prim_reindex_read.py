# Primitive case: `reindex` of a read whose index mixes two iterators (`A[vi * 8 + vk]`):
# the copy gathers A into a (16, 8) buffer indexed by the block's own iterators.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class RowSum:
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), C: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(16, 8):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi * 8 + vk] * T.float32(0.5)
# --- schedule ---
block = sch.get_block("C")
A_reindex = sch.reindex(block, ("read", 0))
