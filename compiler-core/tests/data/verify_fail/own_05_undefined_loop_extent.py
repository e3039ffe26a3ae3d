# expect: error: undefined name `n` in a loop extent (`range(n)`)
# TVM 0.27: rejected at parse: DiagnosticError: error: Undefined variable: n [underlined: `for i in range(n):`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(n):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
