# An int32 value stored into a float32 buffer: TVM 0.27's parser casts it to the buffer's type
# (`B[vi] = T.Cast("float32", A[vi] + 1)`), and Tessel's does the same in the `T.sblock` generation.
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + 1
