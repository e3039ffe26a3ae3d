# expect: error: buffer index `A[vi]` has dtype float32; buffer indices must be integers
#   NOTE: TVM 0.27 only rejects this when compiling (see below); Tessel rejects it when checking.
# TVM 0.27: rejected at compile: InternalError: Check failed: (index->getType()->isIntegerTy()) is false: Expected buffer index to be an integer
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[A[vi]]
