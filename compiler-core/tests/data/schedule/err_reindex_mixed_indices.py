# Negative case: `reindex` of a buffer the block reads at two different indices.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Stencil:
    @T.prim_func
    def main(A: T.Buffer((17,), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] + A[vi + 1]
# --- schedule ---
block = sch.get_block("B")
A_reindex = sch.reindex(block, ("read", 0))
# --- expect-error: Multiple buffer accesses have non-unique indices ---
