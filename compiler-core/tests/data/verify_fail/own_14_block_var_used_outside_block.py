# expect: error: block iterator `vi` is used outside its block (after `with T.block("C")` ends)
# TVM 0.27: rejected at parse: DiagnosticError: error: Undefined variable: vi [underlined: `C[vi] = C[vi] + T.float32(1)`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
        C[vi] = C[vi] + T.float32(1)
