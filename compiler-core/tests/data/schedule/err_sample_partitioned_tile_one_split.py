# Negative case: `sample_partitioned_tile` into one factor with a partition to keep.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Add:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
# --- schedule ---
block = sch.get_block("B")
i, = sch.get_loops(block)
t = sch.sample_partitioned_tile(i, n=1, partition_pos=0, innerpart_factor=2)
# --- expect-error: Cannot tile a loop into 1 splits ---
