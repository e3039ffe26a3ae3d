# Primitive case: `cache_inplace` of a buffer a block updates in place: D is copied into a local
# buffer before the block and back after it, and the block works on the copy.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Update:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((16,), dtype="float32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2)
        with T.block("update"):
            T.reads(D[0:16], B[0:16])
            T.writes(D[0:16])
            for i in range(16):
                D[i] = D[i] * T.float32(0.5) + B[i]
# --- schedule ---
block = sch.get_block("update")
copies = sch.cache_inplace(block, 0, "local")
