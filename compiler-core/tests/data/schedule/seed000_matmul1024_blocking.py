# Source: seed 000, lines 440-494: a 1024x1024x1024 matmul built with `te.create_prim_func`
# (written here as the TVMScript TVM prints for it), blocked by 32.
# First version: split y and x by 32, `reorder(yo, xo, k, yi, xi)`.
# numerics: skip (1024^3 multiply-adds)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"),
             B: T.Buffer((1024, 1024), "float32"),
             C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for m, n, k in T.grid(1024, 1024, 1024):
            with T.block("C"):
                v_m, v_n, v_k = T.axis.remap("SSR", [m, n, k])
                with T.init():
                    C[v_m, v_n] = T.float32(0)
                C[v_m, v_n] = C[v_m, v_n] + A[v_m, v_k] * B[v_k, v_n]
# --- schedule ---
block_c = sch.get_block("C")
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size])
xo, xi = sch.split(x, [None, block_size])
sch.reorder(yo, xo, k, yi, xi)
