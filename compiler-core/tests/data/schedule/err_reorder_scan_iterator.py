# Negative case: `reorder` of loops over a block with a scan iterator (a prefix sum along `j`):
# TVM reorders only loops over data-parallel and reduction iterators.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class PrefixSum:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.scan(16, j)
                T.reads(A[vi, vj], B[vi, vj - 1])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.if_then_else(vj > 0, B[vi, vj - 1], T.float32(0))
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
sch.reorder(j, i)
# --- expect-error: block iter type other than data-parallel or reduction ---
# tessel-error: neither data-parallel nor a reduction
