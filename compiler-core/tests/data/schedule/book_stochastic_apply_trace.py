# Source: seed 001 §4.3-4.4, lines 2237-2336, on MyModule (128x128 matmul, `C[vi, vj] = 0.0` init).
# The trace the book prints for `stochastic_schedule_mm` (lines 2611-2619, `decision=[8, 16]`),
# replayed as it is printed (`def apply_trace(sch)`).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(
        A: T.Buffer((128, 128), "float32"),
        B: T.Buffer((128, 128), "float32"),
        C: T.Buffer((128, 128), "float32"),
    ):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
def apply_trace(sch):
    b0 = sch.get_block(name="C", func_name="main")
    l1, l2, l3 = sch.get_loops(block=b0)
    v4, v5 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[8, 16])
    l6, l7 = sch.split(loop=l2, factors=[v4, v5], preserve_unit_iters=True, disable_predication=False)
    sch.reorder(l1, l6, l3, l7)
    b8 = sch.decompose_reduction(block=b0, loop=l3)
