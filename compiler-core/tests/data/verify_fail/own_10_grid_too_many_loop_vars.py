# expect: error: `T.grid(128)` produces 1 loop but 2 loop variables are unpacked (`for i, j in ...`)
# TVM 0.27: rejected at parse: DiagnosticError: error: Check failed: (packed_realize != nullptr) is false: Type ir.PrimType does not support subscript [underlined: `i, j`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i, j in T.grid(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
