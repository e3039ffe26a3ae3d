# Primitive case: `pad_einsum` of a matmul between a producer and a consumer where only the
# columns grow (6 -> 8): the produced input keeps its buffer, B and the output are padded; then
# `decompose_padding` splits B's padding block into a fill and a copy.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Chain:
    @T.prim_func
    def main(A: T.Buffer((14, 16), "float32"), B: T.Buffer((16, 6), "float32"),
             D: T.Buffer((14, 6), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A2 = T.alloc_buffer((14, 16))
        C = T.alloc_buffer((14, 6))
        for i, j in T.grid(14, 16):
            with T.block("A2"):
                vi, vj = T.axis.remap("SS", [i, j])
                A2[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j, k in T.grid(14, 6, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A2[vi, vk] * B[vk, vj]
        for i, j in T.grid(14, 6):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vi, vj] + T.float32(1)
# --- schedule ---
block_c = sch.get_block("C")
sch.pad_einsum(block_c, [7, 4, 16])
b_pad = sch.get_block("B_pad")
i0, i1 = sch.get_loops(b_pad)
b_fill = sch.decompose_padding(b_pad, i0)
