# Primitive case: the book's tensorize flow on a 16x16x16 matmul: split by 4, `blockize`,
# `decompose_reduction`, then `tensorize` the update block with a 4x4x4 intrinsic whose
# implementation is a loop nest in another order (so the interpreter can check the numbers).
# hand-written: TVM 0.27 segfaults in tensorize (see book_blockize_5_tensorize); the golden is TVM's own output for the steps before with the body of block C_o_update replaced as TVM's Tensorize does (see the note in the .expected.py)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"),
             B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(16, 16, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

# --- tensor-intrin: mm4 ---

@T.prim_func
def mm4_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        for i, j, k in T.grid(4, 4, 4):
            with T.block("update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

@T.prim_func
def mm4_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        for k, i, j in T.grid(4, 4, 4):
            with T.block("mm4"):
                vk, vi, vj = T.axis.remap("RSS", [k, i, j])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block = sch.get_block("C")
i, j, k = sch.get_loops(block)
i, ii = sch.split(i, factors=[None, 4])
j, ji = sch.split(j, factors=[None, 4])
k, ki = sch.split(k, factors=[None, 4])
sch.reorder(i, j, k, ii, ji, ki)
block_mm = sch.blockize(ii)
sch.decompose_reduction(block_mm, k)
sch.tensorize(block_mm, "mm4")
