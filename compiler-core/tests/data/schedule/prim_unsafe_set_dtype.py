# Primitive case: `unsafe_set_dtype` keeps an intermediate sum in float64 (exact for float32
# values, so the result is unchanged): stores into it cast up, its loads cast back down.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class SumThenScale:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        S = T.alloc_buffer((8,), dtype="float32")
        for i, k in T.grid(8, 16):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = S[vi] * T.float32(0.25)
# --- schedule ---
block = sch.get_block("S")
sch.unsafe_set_dtype(block, 0, "float64")
