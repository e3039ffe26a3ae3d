# A binding `8 + i` reaching the upper half of its iterator's domain only: accepted by TVM 0.27,
# and by Tessel in the `T.sblock` generation.
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(16, 8 + i)
            B[vi] = A[vi] * T.float32(2)
