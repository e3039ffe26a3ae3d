# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        Y = T.sblock_alloc_buffer((16, 128, 128))
        for i0 in T.parallel(16):
            for i1, i2_0 in T.grid(128, 16):
                for ax0_init in T.vectorized(8):
                    with T.sblock("Y_init"):
                        n, i = T.axis.remap("SS", [i0, i1])
                        j = T.axis.spatial(128, i2_0 * 8 + ax0_init)
                        T.reads()
                        T.writes(Y[n, i, j])
                        Y[n, i, j] = T.float32(0.0)
                for ax1_0 in range(32):
                    for ax1_1 in T.unroll(4):
                        for ax0 in range(8):
                            with T.sblock("Y_update"):
                                n, i = T.axis.remap("SS", [i0, i1])
                                j = T.axis.spatial(128, i2_0 * 8 + ax0)
                                k = T.axis.reduce(128, ax1_0 * 4 + ax1_1)
                                T.reads(Y[n, i, j], A[n, i, k], B[n, k, j])
                                T.writes(Y[n, i, j])
                                Y[n, i, j] = Y[n, i, j] + A[n, i, k] * B[n, k, j]
                for i2_1 in T.vectorized(8):
                    with T.sblock("C"):
                        n, i = T.axis.remap("SS", [i0, i1])
                        j = T.axis.spatial(128, i2_0 * 8 + i2_1)
                        T.reads(Y[n, i, j])
                        T.writes(C[n, i, j])
                        C[n, i, j] = T.max(Y[n, i, j], T.float32(0.0))
