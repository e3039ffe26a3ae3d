# expect: error: `T.axis.remap` kind string "S" has 1 letter but 2 loop variables are given
# TVM 0.27: rejected at parse: DiagnosticError: error: Check failed: kinds.size() == bindings.size() (1 vs. 2) : [underlined: `T.axis.remap("S", [i, j])`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("S", [i, j])
            C[vi, vj] = A[vi, vj]
