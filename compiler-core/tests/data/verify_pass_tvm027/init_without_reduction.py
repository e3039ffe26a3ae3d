# A `T.init()` in a block without a reduction iterator: the course's generation rejects it, TVM 0.27
# accepts it (the init then runs on every iteration, before the body), and so does Tessel in the
# `T.sblock` generation.
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi]
