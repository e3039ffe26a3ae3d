# parallel over the spatial loop of a block whose reduction iterator indexes its output (TVM 0.27's
# generation accepts the program): the block is neither a complete nor a reduction block, so the
# loop's dataflow is not compact and parallel refuses
from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vk] = T.float32(0)
            B[vk] = B[vk] + A[vi, vk]
# --- schedule
b = sch.get_block("B")
i, k = sch.get_loops(b)
sch.parallel(i)
# --- error: neither
# TVM 0.27: The queried subtree root tirx.For#0 in SRef tree does not have compact dataflow, because its child block s_tir.SBlock#1 on SRef tree is neither a local complete block nor a local reduction block.
