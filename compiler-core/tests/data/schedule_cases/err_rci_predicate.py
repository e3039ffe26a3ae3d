# the consumer has a predicate (non-divisible split)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
    B = T.alloc_buffer((100,))
    for i in range(100):
        with T.block("B"):
            vi = T.axis.spatial(100, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(100):
        with T.block("C"):
            vi = T.axis.spatial(100, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
c = sch.get_block("C")
i, = sch.get_loops(c)
i0, i1 = sch.split(i, [None, 32])
sch.reverse_compute_inline(c)
# --- error: The body of the inlined block should be in form of
# TVM 0.27: The body of the inlined block should be in form of
