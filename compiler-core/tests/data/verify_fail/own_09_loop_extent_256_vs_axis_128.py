# expect: error: loop `i` has extent 256 but is bound to a block iterator of domain 128 (`T.axis.spatial(128, i)`): the iterator would leave its domain
#   NOTE: TVM 0.27 itself accepts this program (see below); Tessel rejects it on purpose.
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), C: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
