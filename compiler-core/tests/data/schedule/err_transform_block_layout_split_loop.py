# Negative case: `transform_block_layout` after `split`: the block's binding is no longer its
# loops' variables.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Scale:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] * T.float32(3)
# --- schedule ---
block = sch.get_block("B")
i, = sch.get_loops(block)
i0, i1 = sch.split(i, factors=[8, 8])
sch.transform_block_layout(block, lambda i: (i // 8, i % 8))
# --- expect-error: are not variables of outer loops ---
