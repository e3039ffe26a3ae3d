# Negative case: `set_scope` naming a buffer the block only reads: the name must be one of the
# block's written buffers.
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
y = sch.get_block("Y")
sch.set_scope(y, "E", "local")
# --- expect-error: was a read buffer ---
# tessel-error: is a read buffer of block
