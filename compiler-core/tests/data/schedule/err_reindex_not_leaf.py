# Negative case: `reindex` of a block that holds another block (after `blockize`).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Add:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
outer = sch.blockize(j)
A_reindex = sch.reindex(outer, ("read", 0))
# --- expect-error: is not a leaf block ---
