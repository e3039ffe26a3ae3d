# expect: error: reduction iterator `vk` (T.axis.reduce / "R") is used in the index of a written buffer (`C[vi, vk]`); writes may only be indexed by spatial iterators
#   NOTE: TVM 0.27 itself accepts this program (see below); Tessel rejects it in the course's `T.block`
#   generation and accepts its `T.sblock` twin (verify_pass_tvm027/reduce_iter_in_write_index.py),
#   as TVM 0.27 does (see `ApiGeneration`).
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vk] = T.float32(0)
            C[vi, vk] = C[vi, vk] + A[vi, vk] * B[vk, vj]
