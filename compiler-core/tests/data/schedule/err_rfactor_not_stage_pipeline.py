# Negative case: `rfactor` in a scope that is not a stage pipeline: the row sums fill only the
# first 8 rows of S, which the next block reads all 16 rows of.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class PartialRowSum:
    @T.prim_func
    def main(A: T.Buffer((16, 32), "float32"), D: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        S = T.alloc_buffer((16,), dtype="float32")
        for i, k in T.grid(8, 32):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        for i in range(16):
            with T.block("D"):
                vi = T.axis.spatial(16, i)
                D[vi] = S[vi] * T.float32(0.5)
# --- schedule ---
s = sch.get_block("S")
i, k = sch.get_loops(s)
ko, ki = sch.split(k, factors=[None, 4])
sch.rfactor(ki, 0)
# --- expect-error: is not a stage pipeline ---
# tessel-error: is not a stage pipeline
