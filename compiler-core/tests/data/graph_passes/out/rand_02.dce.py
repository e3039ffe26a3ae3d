# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_reshape_reshape(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_reshape_intermediate_1: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_reshape_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape_intermediate[v_ax0, v_ax1])
                T_reshape_intermediate[v_ax0, v_ax1] = x[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_reshape_intermediate[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape_intermediate_1[v_ax0, v_ax1])
                T_reshape_intermediate_1[v_ax0, v_ax1] = T_reshape_intermediate[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def fused_softmax_subtract(v7: T.Buffer((T.int64(4), T.int64(4)), "float32"), x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract_intermediate: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(4),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(4),))
        T_softmax_norm_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(v7[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], v7[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v7[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(v7[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(T_softmax_exp[v_i0, v_k])
                T.writes(T_softmax_expsum[v_i0])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
                T.writes(T_softmax_norm_intermediate[v_i0, v_i1])
                T.sblock_attr({"axis": 1})
                T_softmax_norm_intermediate[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], T_softmax_norm_intermediate[v_ax0, v_ax1])
                T.writes(T_subtract_intermediate[v_ax0, v_ax1])
                T_subtract_intermediate[v_ax0, v_ax1] = x[v_ax0, v_ax1] - T_softmax_norm_intermediate[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul(v6: T.Buffer((T.int64(4), T.int64(4)), "float32"), v3: T.Buffer((T.int64(4), T.int64(4)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(v6[v_i0, v_k], v3[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + v6[v_i0, v_k] * v3[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def softmax(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_softmax_norm: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(4),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(4),))
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(y[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], y[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(y[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(y[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(T_softmax_exp[v_i0, v_k])
                T.writes(T_softmax_expsum[v_i0])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
                T.writes(T_softmax_norm[v_i0, v_i1])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @T.prim_func(private=True, s_tir=True)
    def transpose(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_transpose: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v0[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = v0[v_ax1, v_ax0]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.softmax, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1 = R.call_tir(cls.transpose, (v0,), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv = R.call_tir(cls.fused_reshape_reshape, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v3 = R.call_tir(cls.softmax, (v1,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v7 = R.call_tir(cls.matmul, (lv, v3), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv1 = R.call_tir(cls.fused_softmax_subtract, (v7, x), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv1, v3
            R.output(gv)
        return gv
