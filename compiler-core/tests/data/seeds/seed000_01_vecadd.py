# Source: seed 000 (000_4ea5f7ccc00a1e83.txt, MLC notebook "Tensor Program Abstraction in Action"),
#   cell In [4], lines 69-81: MyModule (vector add), written by hand.
# Fixes: none. Note: the cell imports `tir as T` but already spells blocks `T.sblock`.
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
