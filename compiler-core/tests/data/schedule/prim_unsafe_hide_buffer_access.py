# Primitive case: `unsafe_hide_buffer_access` drops a matmul's read of B (listed twice) and its
# write of C from the block's declared regions; the body is unchanged.
# numerics: skip the region checks would flag the hidden accesses; the body is unchanged (the unit test `hide_buffer_access_keeps_the_body` checks it)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((16, 32), "float32"),
             B: T.Buffer((32, 8), "float32"),
             C: T.Buffer((16, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(16, 8, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block = sch.get_block("C")
sch.unsafe_hide_buffer_access(block, "read", [1, 1])
sch.unsafe_hide_buffer_access(block, "write", [0])
