# Primitive case: `sample_partitioned_tile` with decisions TVM repairs: [3, 4, 8] is not a perfect
# tiling of 64 (it becomes [2, 4, 8]); [64, 1, 1]'s tail misses the factor 2 (it becomes the
# default [32, 2, 1]). The factors then split the loops.
# values: t0, t1, t2, u0, u1, u2
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Add:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(64, 64):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
# --- schedule ---
block = sch.get_block("B")
i, j = sch.get_loops(block)
t0, t1, t2 = sch.sample_partitioned_tile(i, n=3, partition_pos=1, innerpart_factor=2, decision=[3, 4, 8])
u0, u1, u2 = sch.sample_partitioned_tile(j, n=3, partition_pos=1, innerpart_factor=2, decision=[64, 1, 1])
i0, i1, i2 = sch.split(i, factors=[t0, t1, t2])
j0, j1, j2 = sch.split(j, factors=[u0, u1, u2])
