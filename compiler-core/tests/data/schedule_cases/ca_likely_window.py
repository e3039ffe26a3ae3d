# compute_at of a copy into a 3-wide window whose reads are guarded by T.likely conditions
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((64,), "float32"), Y: T.Buffer((64,), "float32")):
    S = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("S"):
            vi = T.axis.spatial(64, i)
            S[vi] = X[vi] * T.float32(0.5)
    for i_0, i_1, k in T.grid(8, 8, 3):
        with T.block("Y"):
            vi = T.axis.spatial(64, i_0 * 8 + i_1)
            vk = T.axis.reduce(3, k)
            with T.init():
                Y[vi] = T.float32(0)
            Y[vi] = Y[vi] + T.if_then_else(T.likely(1 <= vi + vk, dtype="bool") and T.likely(vi + vk < 65), S[vi + vk - 1], T.float32(0))
# --- schedule
s = sch.get_block("S")
y = sch.get_block("Y")
i_0, i_1, k = sch.get_loops(y)
sch.compute_at(s, i_0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((64,), "float32"), Y: T.Buffer((64,), "float32")):
        # with T.block("root"):
        S = T.alloc_buffer((64,))
        for i_0 in range(8):
            for ax0 in range(10):
                with T.block("S"):
                    vi = T.axis.spatial(64, i_0 * 8 - 1 + ax0)
                    T.where(1 <= i_0 * 8 + ax0 and i_0 * 8 + ax0 < 65)
                    T.reads(X[vi])
                    T.writes(S[vi])
                    S[vi] = X[vi] * T.float32(0.5)
            for i_1, k in T.grid(8, 3):
                with T.block("Y"):
                    vi = T.axis.spatial(64, i_0 * 8 + i_1)
                    vk = T.axis.reduce(3, k)
                    T.reads(S[vi + vk - 1])
                    T.writes(Y[vi])
                    with T.init():
                        Y[vi] = T.float32(0.0)
                    Y[vi] = Y[vi] + T.if_then_else(T.likely(1 <= vi + vk) and T.likely(vi + vk < 65), S[vi + vk - 1], T.float32(0.0))
# --- trace
# b0 = sch.get_block(name="S", func_name="main")
# b1 = sch.get_block(name="Y", func_name="main")
# l2, l3, l4 = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)
