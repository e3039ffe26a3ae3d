# Negative case: `cache_index` of a block whose stores compute no index expression (TVM 0.27 fails
# building an empty stage; Tessel says why).
# tessel-error: no index expression to cache
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Scale:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2)
# --- schedule ---
block_b = sch.get_block("B")
stages = sch.cache_index(block_b, "global")
# --- expect-error: empty SeqStmt ---
