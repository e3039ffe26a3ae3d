# TVM docs "Blitz Course to TensorIR": split the 8-element add into
# 2 x 2 x 2, reorder, and bind the loops to GPU blocks and threads.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0

# --- schedule ---
sch = tvm.tir.Schedule(MyModule)
block_b = sch.get_block("B")
(i,) = sch.get_loops(block_b)
i_0, i_1, i_2 = sch.split(i, factors=[2, 2, 2])
sch.reorder(i_0, i_2, i_1)
sch.bind(i_0, "blockIdx.x")
sch.bind(i_2, "threadIdx.x")
