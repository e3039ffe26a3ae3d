# Primitive case: `loop_partition` of the row loop of a matmul with constant factors only: the rest
# of the range becomes a third piece. The row iterator's domain narrows in each; the init stays.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((6, 16), "float32"),
             B: T.Buffer((16, 5), "float32"),
             C: T.Buffer((6, 5), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(6, 5, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block_c = sch.get_block("C")
i, j, k = sch.get_loops(block_c)
parts = sch.loop_partition(i, [2, 3])
