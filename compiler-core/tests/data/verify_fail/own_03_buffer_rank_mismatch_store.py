# expect: error: buffer `C` is 1-D but is stored with 2 indices (`C[vi, vj]`)
# TVM 0.27: rejected at parse: DiagnosticError: error: Check failed: buffer->shape.size() == indices.size() (1 vs. 2) : BufferVar C is 1-dimensional, cannot be indexed with the 2-dimensional indices provided. [underlined: `C[vi, vj] = A[vi]`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i, j in T.grid(128, 1):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi]
