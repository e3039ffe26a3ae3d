# expect: error: unknown dtype "float33" in `T.Buffer((128,), "float33")`
#   NOTE: TVM 0.27 only rejects this when compiling (see below); Tessel rejects it when checking.
# TVM 0.27: rejected at compile: InternalError: do not support T.float33
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float33"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
