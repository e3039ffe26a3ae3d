# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for m_0 in T.parallel(32):
            for n_0, k, m_1, n_1 in T.grid(32, 1024, 32, 32):
                with T.sblock("C"):
                    v_m = T.axis.spatial(1024, m_0 * 32 + m_1)
                    v_n = T.axis.spatial(1024, n_0 * 32 + n_1)
                    v_k = T.axis.reduce(1024, k)
                    T.reads(A[v_m, v_k], B[v_k, v_n])
                    T.writes(C[v_m, v_n])
                    with T.init():
                        C[v_m, v_n] = T.float32(0.0)
                    C[v_m, v_n] = C[v_m, v_n] + A[v_m, v_k] * B[v_k, v_n]
