# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.5.1 "Example: Element-wise Add",
#   lines 1065-1085: MyAdd (int64 add). The identical module of §2.5.2 "Parallel, Vectorize and Unroll"
#   (lines 1209-1230, split by a page break) is de-duplicated into this file.
# Fixes: in the first occurrence the following driver code (`rt_lib = tvm.build(MyAdd, ...)` ... 
#   `np.testing.assert_allclose(...)`) was extracted indented into the class body; it is plain Python,
#   not part of the module, and is dropped here.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyAdd:
    @T.prim_func
    def add(A: T.Buffer((4, 4), "int64"),
            B: T.Buffer((4, 4), "int64"),
            C: T.Buffer((4, 4), "int64")):
        T.func_attr({"global_symbol": "add"})
        for i, j in T.grid(4, 4):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                vj = T.axis.spatial(4, j)
                C[vi, vj] = A[vi, vj] + B[vi, vj]
