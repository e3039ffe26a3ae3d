# expect: error: `T.axis.remap` binds only loop variables, got the expression `i + 1`
# TVM 0.27: rejected at parse: DiagnosticError: error: Check failed: (v) is false: TypeError: Only Var is supported in T.axis.remap [underlined: `T.axis.remap("S", [i + 1])`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((129,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.remap("S", [i + 1])
            C[vi - 1] = A[vi]
