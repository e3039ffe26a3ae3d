# Primitive case: `reindex` of both buffers of the middle block of a chain: the block writes a
# transposed intermediate, so the write copy goes right after its loops and before the consumer.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Chain:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), D: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((8, 16), dtype="float32")
        C = T.alloc_buffer((16, 8), dtype="float32")
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i, j in T.grid(8, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vj, vi] = B[vi, vj] * T.float32(3)
        for i, j in T.grid(8, 16):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vj, vi] - T.float32(2)
# --- schedule ---
block = sch.get_block("C")
C_reindex = sch.reindex(block, ("write", 0))
B_reindex = sch.reindex(block, "B")
