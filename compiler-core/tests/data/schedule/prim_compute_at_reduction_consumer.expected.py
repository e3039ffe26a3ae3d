# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        Y = T.sblock_alloc_buffer((16, 16))
        for i, j_0 in T.grid(16, 4):
            for ax0, ax1 in T.grid(4, 16):
                with T.sblock("Y"):
                    vi = T.axis.spatial(16, i)
                    vj = T.axis.spatial(16, j_0 * 4 + ax0)
                    vk = T.axis.reduce(16, ax1)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(Y[vi, vj])
                    with T.init():
                        Y[vi, vj] = T.float32(0.0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for j_1 in range(4):
                with T.sblock("C"):
                    vi = T.axis.spatial(16, i)
                    vj = T.axis.spatial(16, j_0 * 4 + j_1)
                    T.reads(Y[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
