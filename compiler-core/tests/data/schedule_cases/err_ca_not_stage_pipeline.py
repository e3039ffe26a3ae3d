# the producer's binding is not affine, so its written region cannot be bounded from below: the scope is not a stage pipeline
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((128,))
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, (i * i) % 128)
            B[vi] = A[vi] * T.float32(2)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, = sch.get_loops(c)
sch.compute_at(b, i)
# --- error: is not a stage pipeline
# TVM 0.27: The scope s_tir.SBlock#0 is not a stage pipeline.
