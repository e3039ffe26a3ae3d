# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mean(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_divide: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        x_red = T.sblock_alloc_buffer((T.int64(4), T.int64(1)))
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("x_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(x[v_ax0, v_k1])
                T.writes(x_red[v_ax0, v_ax1])
                with T.init():
                    x_red[v_ax0, v_ax1] = T.float32(0.0)
                x_red[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] + x[v_ax0, v_k1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] / T.float32(4.0)

    @T.prim_func(private=True, s_tir=True)
    def softmax(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_softmax_norm: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(4),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(4),))
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(v0[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], v0[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v0[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(v0[v_i0, v_i1] - T_softmax_maxelem[v_i0])
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
    def subtract(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), y: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], y[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = x[v_ax0, v_ax1] - y[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def sum(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), v0_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("v0_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(v0[v_ax0, v_k1])
                T.writes(v0_red[v_ax0, v_ax1])
                with T.init():
                    v0_red[v_ax0, v_ax1] = T.float32(0.0)
                v0_red[v_ax0, v_ax1] = v0_red[v_ax0, v_ax1] + v0[v_ax0, v_k1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_transpose: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = x[v_ax1, v_ax0]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1 = R.call_tir(cls.sum, (v0,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v2 = R.call_tir(cls.softmax, (v0,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v3 = R.call_tir(cls.subtract, (x, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.mean, (x,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v5 = R.call_tir(cls.softmax, (v2,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v5, v3
            R.output(gv)
        return gv
