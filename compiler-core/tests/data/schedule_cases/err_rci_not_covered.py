# the consumer iterates further than the producer: not covered
# numerics: invalid input (C reads B[128] and B[129], past its end)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((130,), "float32")):
    B = T.alloc_buffer((128,))
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(130):
        with T.block("C"):
            vi = T.axis.spatial(130, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
c = sch.get_block("C")
sch.reverse_compute_inline(c)
# --- error: The body of the inlined block should be in form of
# TVM 0.27: The body of the inlined block should be in form of
