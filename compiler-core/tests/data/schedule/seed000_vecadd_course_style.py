# Source: seed 000, lines 343-377: the same transformation in the course's spelling
# (`get_block`, `reorder(i_0, i_2, i_1)`, `parallel(i_0)`).
# target: ../seeds/seed000_05_vecadd_parallel_printed.py
import tvm
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), 
             B: T.Buffer((128,), "float32"), 
             C: T.Buffer((128,), "float32")):
        # extra annotations for the function
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(128):
            with T.sblock("C"):
                # declare a data parallel iterator on spatial domain
                vi = T.axis.spatial(128, i)
                C[vi] = A[vi] + B[vi]
# --- schedule ---
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
i_0, i_1, i_2 = sch.split(i, factors=[None, 4, 4])
sch.reorder(i_0, i_2, i_1)
sch.parallel(i_0)
