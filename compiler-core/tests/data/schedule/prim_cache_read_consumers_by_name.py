# Primitive case: `cache_read` of S for both of its consumers, the consumers given by block name
# (TVM's front end looks the names up, which the trace records as `get_block`s).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class TwoUses:
    @T.prim_func
    def main(X: T.Buffer((32,), "float32"), P: T.Buffer((32,), "float32"),
             Q: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        S = T.alloc_buffer((32,), dtype="float32")
        for i in range(32):
            with T.block("S"):
                vi = T.axis.spatial(32, i)
                S[vi] = X[vi] * X[vi]
        for i in range(32):
            with T.block("P"):
                vi = T.axis.spatial(32, i)
                P[vi] = S[vi] + T.float32(1)
        for i in range(32):
            with T.block("Q"):
                vi = T.axis.spatial(32, i)
                Q[vi] = S[vi] - T.float32(1)
# --- schedule ---
p = sch.get_block("P")
s_local = sch.cache_read(p, 0, "local", consumer_blocks=["P", "Q"])
