# expect: error: unknown TVMScript function `T.relu`
# TVM 0.27: rejected at parse: DiagnosticError: error: module 'tvm.tirx.script' has no attribute 'relu' [underlined: `T.relu`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = T.relu(A[vi])
