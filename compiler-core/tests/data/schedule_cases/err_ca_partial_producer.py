# compute_at of a producer whose binding reaches only half of its domain (TVM 0.27's generation
# accepts the program): it writes rows [0, 8) of B while the consumer reads all 16, so the region
# cover fails and compute_at refuses
from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.sblock_alloc_buffer((16, 16))
    for i, j in T.grid(8, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.compute_at(b, i)
# --- error: not a stage pipeline
# TVM 0.27: The scope s_tir.SBlock#0 is not a stage pipeline.
