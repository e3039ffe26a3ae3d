# Notebook "Tensor Program Abstraction in Action": split the vector add
# into three loops, swap the inner two, parallelize the outer one.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer(128, "float32"),
             B: T.Buffer(128, "float32"),
             C: T.Buffer(128, "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = A[vi] + B[vi]

# --- schedule ---
sch = tvm.tir.Schedule(MyModule)
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
i0, i1, i2 = sch.split(i, factors=[None, 4, 4])
sch.reorder(i0, i2, i1)
sch.parallel(i0)
