# Source: seed 000 (MLC notebook "Tensor Program Abstraction in Action"), lines 156-211,
# MyModule (vector add of 128).
# Step 1: `sch.split(i, factors=[None, 4, 4])`. The notebook prints the result (lines 165-181).
# target: ../seeds/seed000_03_vecadd_split_printed.py
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
block = sch.get_block("C")
i, = sch.get_loops(block)
i0, i1, i2 = sch.split(i, factors=[None, 4, 4])
