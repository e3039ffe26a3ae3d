# Primitive case: `set_scope` naming the buffer (TVM's front end turns the name into the
# block's write-buffer index, which the trace records).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Softplus:
    @T.prim_func
    def main(X: T.Buffer((8, 24), "float32"), Y: T.Buffer((8, 24), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        E = T.alloc_buffer((8, 24), dtype="float32")
        for i, j in T.grid(8, 24):
            with T.block("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = T.exp(X[vi, vj])
        for i, j in T.grid(8, 24):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.log(E[vi, vj] + T.float32(1))
# --- schedule ---
e = sch.get_block("E")
sch.set_scope(e, "E", "local")
