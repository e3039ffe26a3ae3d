# expect: error: `T.axis.remap("SSR", [i, j, k])` defines 3 block iterators but only 2 names are assigned (`vi, vj = ...`)
# TVM 0.27: rejected at parse: DiagnosticError: error: too many values to unpack (expected 2) [underlined: `vi, vj`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = C[vi, vj] + A[vi, vj] * B[vi, vj]
