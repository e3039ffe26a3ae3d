# Source: seed 002 (002_a38b9a90d4ef2316.txt, TVM tutorial "Blitz Course to TensorIR"), output of
#   `print(sch.mod.script())` after `sch.split(i, factors=[2, 2, 2])`, lines 111-125.
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
        T.func_attr({"tir.noalias": True, "global_symbol": "main"})
        # body
        # with T.block("root")
        for i_0, i_1, i_2 in T.grid(2, 2, 2):
            with T.block("B"):
                vi = T.axis.spatial(8, i_0 * 4 + i_1 * 2 + i_2)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1)
