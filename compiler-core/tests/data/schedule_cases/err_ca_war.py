# C overwrites A after B read it (a write-after-read dependency): not a stage pipeline
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128,), "float32"), D: T.Buffer((128,), "float32")):
    X = T.alloc_buffer((128,))
    B = T.alloc_buffer((128,))
    for i in range(128):
        with T.block("X"):
            vi = T.axis.spatial(128, i)
            X[vi] = A[vi]
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = X[vi] * T.float32(2)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            X[vi] = T.float32(1)
    for i in range(128):
        with T.block("D"):
            vi = T.axis.spatial(128, i)
            D[vi] = B[vi] + X[vi]
# --- schedule
b = sch.get_block("B")
d = sch.get_block("D")
i, = sch.get_loops(d)
sch.compute_at(b, i)
# --- error: is not a stage pipeline
# TVM 0.27: The scope s_tir.SBlock#0 is not a stage pipeline.
