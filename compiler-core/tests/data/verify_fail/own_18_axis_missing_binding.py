# expect: error: `T.axis.spatial(128)` is missing its binding (the loop expression the iterator is bound to)
# TVM 0.27: rejected at parse: DiagnosticError: error: axis.spatial() missing 1 required positional argument: 'binding' [underlined: `T.axis.spatial(128)`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128)
            C[vi] = A[vi]
