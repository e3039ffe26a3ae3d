# Source: seed 002 (002_a38b9a90d4ef2316.txt, TVM tutorial "Blitz Course to TensorIR"), output of
#   `print(ir_module_from_te.script())` (module created with te.create_prim_func), lines 64-78.
# Fixes: the seed (a web page saved as text) lost ALL indentation; re-indented with 4 spaces per level
#   following the Python block structure (class > def > for > with > statements). No token was changed.
import tvm
from tvm.script import tir as T

# from tvm.script import tir as T
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer[8, "float32"], B: T.Buffer[8, "float32"]):
        # function attr dict
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        # body
        # with T.block("root")
        for i0 in T.serial(8):
            with T.block("B"):
                v_i0 = T.axis.spatial(8, i0)
                T.reads(A[v_i0])
                T.writes(B[v_i0])
                B[v_i0] = A[v_i0] + T.float32(1)
