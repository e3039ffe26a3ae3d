# expect: error: unknown axis kind 'X' in `T.axis.remap("SX", ...)` (only S and R are allowed)
# TVM 0.27: rejected at parse: DiagnosticError: error: Unknown axis kind: X [underlined: `T.axis.remap("SX", [i, j])`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SX", [i, j])
            C[vi, vj] = A[vi, vj]
