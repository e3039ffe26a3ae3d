# reindex keeps a unit-extent iterator's dimension: the index folds to 0 but stays as written
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((1, 6), "float32"), B: T.Buffer((6, 1), "float32"), C: T.Buffer((1, 1), "float32")):
    for i, j, k in T.grid(1, 1, 6):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule
sch.reindex(sch.get_block("C"), ("write", 0))
sch.reindex(sch.get_block("C"), ("read", 0))
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1, 6), "float32"), B: T.Buffer((6, 1), "float32"), C: T.Buffer((1, 1), "float32")):
        # with T.block("root"):
        C_reindex = T.alloc_buffer((1, 1))
        A_reindex = T.alloc_buffer((1, 6))
        for ax0, ax1 in T.grid(1, 6):
            with T.block("A_reindex_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_reindex[v0, v1])
                A_reindex[v0, v1] = A[v0, v1]
        for i, j, k in T.grid(1, 1, 6):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A_reindex[vi, vk], B[vk, vj])
                T.writes(C_reindex[vi, vj])
                with T.init():
                    C_reindex[vi, vj] = T.float32(0.0)
                C_reindex[vi, vj] = C_reindex[vi, vj] + A_reindex[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(1, 1):
            with T.block("C_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(C_reindex[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_reindex[v0, v1]
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# b1 = sch.reindex(block=b0, buffer=("write", 0))
# b2 = sch.get_block(name="C", func_name="main")
# b3 = sch.reindex(block=b2, buffer=("read", 0))
