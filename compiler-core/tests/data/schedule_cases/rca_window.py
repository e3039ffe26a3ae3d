# reverse_compute_at with a stencil consumer: it covers what the producer tile wrote
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((130,), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((130,))
    for i in range(130):
        with T.block("B"):
            vi = T.axis.spatial(130, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = B[vi] + B[vi + 1] + B[vi + 2]
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, = sch.get_loops(b)
i0, i1 = sch.split(i, [None, 26])
sch.reverse_compute_at(c, i0)
# --- error: pattern match failed
# TVM 0.27: Check failed: (var.has_value()) is false: TensorRegion pattern match failed: vi
