# Primitive case: the sequence the property test found: a unit loop split again (an always-false part of
# the predicate), reordered, then `decompose_reduction` above the predicated loops. TVM
# keeps the init's loops and predicate; dropping them re-initialises C after it was computed.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul8:
    @T.prim_func
    def main(A: T.Buffer((8, 8), "float32"),
             B: T.Buffer((8, 8), "float32"),
             C: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(8, 8, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
l4, l5 = sch.split(loop=l1, factors=[None, 8])
l7, l8, l9, l10 = sch.get_loops(block=b0)
l11, l12, l13 = sch.split(loop=l7, factors=[None, 2, 2])
l15, l16, l17, l18, l19, l20 = sch.get_loops(block=b0)
sch.reorder(l17, l15, l16, l18)
l22, l23, l24, l25, l26, l27 = sch.get_loops(block=b0)
b29 = sch.decompose_reduction(block=b0, loop=l23)
