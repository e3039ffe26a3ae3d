# Primitive case: `fuse_reduction_epilogue` of a bias added to a matmul's result: the matmul starts
# from the bias and writes D directly; the bias block and its loops disappear.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MatmulBias:
    @T.prim_func
    def main(A: T.Buffer((4, 6), "float32"), B: T.Buffer((6, 5), "float32"),
             C: T.Buffer((5,), "float32"), D: T.Buffer((4, 5), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        temp = T.alloc_buffer((4, 5), "float32")
        for i, j, k in T.grid(4, 5, 6):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    temp[vi, vj] = T.float32(0)
                temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(4, 5):
            with T.block("bias"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vj] + temp[vi, vj]
# --- schedule ---
block_mm = sch.get_block("matmul")
block_bias = sch.get_block("bias")
sch.fuse_reduction_epilogue(block_mm, block_bias)
k0, k1 = sch.split(sch.get_loops(block_mm)[2], factors=[None, 2])
