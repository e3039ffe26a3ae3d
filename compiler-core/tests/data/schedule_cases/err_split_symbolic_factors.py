# constant factors cannot be shown to cover a symbolic extent
from tvm.script import tir as T
@T.prim_func
def main(n: T.int32, a: T.handle, b: T.handle):
    A = T.match_buffer(a, (n,))
    B = T.match_buffer(b, (n,))
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] * T.float32(3)
# --- schedule
i, = sch.get_loops(sch.get_block("B"))
sch.split(i, [4, 8])
# --- error: split
# TVM 0.27: The product of factors is not larger than or equal to the extent of loop tirx.For#0
