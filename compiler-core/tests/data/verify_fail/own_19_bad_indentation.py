# expect: error: unexpected indent
# TVM 0.27: rejected at parse: IndentationError: unexpected indent
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
              C[vi] = A[vi]
