# a cache read for one consumer goes after the producer even when a loop nest with a sequence of blocks stands between them
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((32, 32), "float32"), Y: T.Buffer((32, 32), "float32"), Z: T.Buffer((32, 32), "float32")):
    P = T.alloc_buffer((32, 32))
    for i, j in T.grid(32, 32):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = X[vi, vj] + T.float32(1)
    for i in range(4):
        for j in range(32):
            with T.block("Y0"):
                vi = T.axis.spatial(32, i * 8)
                vj = T.axis.spatial(32, j)
                Y[vi, vj] = P[vi, vj]
        for k, j in T.grid(7, 32):
            with T.block("Y1"):
                vi = T.axis.spatial(32, i * 8 + k + 1)
                vj = T.axis.spatial(32, j)
                Y[vi, vj] = P[vi, vj] * T.float32(2)
    for i, j in T.grid(32, 32):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = P[vi, vj] * T.float32(3)
# --- schedule
z = sch.get_block("Z")
sch.cache_read(z, 0, "local", consumer_blocks=[z])
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((32, 32), "float32"), Y: T.Buffer((32, 32), "float32"), Z: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        P = T.alloc_buffer((32, 32))
        P_local = T.alloc_buffer((32, 32), scope="local")
        for i, j in T.grid(32, 32):
            with T.block("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj])
                T.writes(P[vi, vj])
                P[vi, vj] = X[vi, vj] + T.float32(1.0)
        for i in range(4):
            for j in range(32):
                with T.block("Y0"):
                    vi = T.axis.spatial(32, i * 8)
                    vj = T.axis.spatial(32, j)
                    T.reads(P[vi, vj])
                    T.writes(Y[vi, vj])
                    Y[vi, vj] = P[vi, vj]
            for k, j in T.grid(7, 32):
                with T.block("Y1"):
                    vi = T.axis.spatial(32, i * 8 + k + 1)
                    vj = T.axis.spatial(32, j)
                    T.reads(P[vi, vj])
                    T.writes(Y[vi, vj])
                    Y[vi, vj] = P[vi, vj] * T.float32(2.0)
        for ax0, ax1 in T.grid(32, 32):
            with T.block("P_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(P[v0, v1])
                T.writes(P_local[v0, v1])
                P_local[v0, v1] = P[v0, v1]
        for i, j in T.grid(32, 32):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(P_local[vi, vj])
                T.writes(Z[vi, vj])
                Z[vi, vj] = P_local[vi, vj] * T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="Z", func_name="main")
# b1 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope="local", consumer_blocks=[b0])
