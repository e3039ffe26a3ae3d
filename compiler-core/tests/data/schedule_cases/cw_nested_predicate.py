# the block's write happens in a nested block under a predicate: the cache holds only the part written
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((16, 12), "float32"), Y: T.Buffer((9, 5), "float32")):
    for i, j in T.grid(16, 12):
        with T.block("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.block("inner"):
                T.where(vi < 9 and vj < 5)
                Y[vi, vj] = X[vi, vj] - T.float32(1)
# --- schedule
sch.cache_write(sch.get_block("outer"), 0, "local")
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((16, 12), "float32"), Y: T.Buffer((9, 5), "float32")):
        # with T.block("root"):
        Y_local = T.alloc_buffer((9, 5), scope="local")
        for i, j in T.grid(16, 12):
            with T.block("outer"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj])
                T.writes(Y_local[vi, vj])
                with T.block("inner"):
                    T.where(vi < 9 and vj < 5)
                    T.reads(X[vi, vj])
                    T.writes(Y_local[vi, vj])
                    Y_local[vi, vj] = X[vi, vj] - T.float32(1.0)
        for ax0, ax1 in T.grid(9, 5):
            with T.block("Y_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(Y_local[v0, v1])
                T.writes(Y[v0, v1])
                Y[v0, v1] = Y_local[v0, v1]
# --- trace
# b0 = sch.get_block(name="outer", func_name="main")
# b1 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="local")
