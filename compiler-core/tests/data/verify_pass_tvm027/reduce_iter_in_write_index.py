# TVM 0.27's generation of verify_fail/own_04_reduce_iter_in_write_index.py: a reduction iterator
# indexing the output. TVM 0.27 accepts it; so does Tessel in the `T.sblock` generation (rfactor and
# the other reduction primitives refuse such a block themselves).
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32,), "float32")):
    for i, k in T.grid(32, 32):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            B[vk] = B[vk] + A[vi, vk]
