# Primitive case: `cache_read` and `cache_write` naming their buffers instead of giving indices
# (the trace records the indices the names stand for).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Axpy:
    @T.prim_func
    def main(X: T.Buffer((32, 16), "float32"), Y: T.Buffer((32, 16), "float32"),
             Z: T.Buffer((32, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(32, 16):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = T.float32(3) * X[vi, vj] + Y[vi, vj]
# --- schedule ---
z = sch.get_block("Z")
y_shared = sch.cache_read(z, "Y", "shared")
z_local = sch.cache_write(z, "Z", "local")
