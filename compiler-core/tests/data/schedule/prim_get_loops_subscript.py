# Primitive case: indexing and slicing the list `get_loops` returns, as the book does
# (`sch.get_loops(A_shared)[-1]`, `sch.get_loops(block=read_cache)[-2:]`).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Add3:
    @T.prim_func
    def main(A: T.Buffer((4, 8, 16), "float32"),
             B: T.Buffer((4, 8, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(4, 8, 16):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
# --- schedule ---
block = sch.get_block("B")
first = sch.get_loops(block)[0]
j, k = sch.get_loops(block)[-2:]
last = sch.get_loops(block)[-1]
k0, k1 = sch.split(last, factors=[None, 4])
sch.parallel(first)
