# Negative case: `write_at` in a scope that is no stage pipeline any more: after `rolling_buffer`,
# the producer's region no longer covers what the consumer reads.
# tessel-error: stage pipeline
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Windows:
    @T.prim_func
    def main(A: T.Buffer((12,), "float32"), C: T.Buffer((9,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((10,), "float32")
        for i in range(10):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
        for i in range(9):
            with T.block("C"):
                vi = T.axis.spatial(9, i)
                C[vi] = B[vi] + B[vi + 1]
# --- schedule ---
block_b = sch.get_block("B")
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
io, ii = sch.split(i, factors=[3, 3])
sch.compute_at(block_b, io)
sch.rolling_buffer(block_b, 0)
c_local = sch.write_at(io, block_c, 0, "local")
# --- expect-error: not a stage pipeline ---
