# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], x[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = y[v_ax0, v_ax1] + x[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def add1(v5: T.Buffer((T.int64(4), T.int64(1)), "float32"), v5_1: T.Buffer((T.int64(4), T.int64(1)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v5[v_ax0, v_ax1], v5_1[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = v5[v_ax0, v_ax1] + v5_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v0[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(v0[v_i0, v_i1], T.float32(0.0))

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
    def sum(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), v1_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("v1_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(v1[v_ax0, v_k1])
                T.writes(v1_red[v_ax0, v_ax1])
                with T.init():
                    v1_red[v_ax0, v_ax1] = T.float32(0.0)
                v1_red[v_ax0, v_ax1] = v1_red[v_ax0, v_ax1] + v1[v_ax0, v_k1]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add, (y, x), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, y, y)
            v2 = R.call_tir(cls.add, (x, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v3 = R.call_tir(cls.softmax, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.relu, (v0,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v5 = R.call_tir(cls.sum, (v1,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v6 = R.call_tir(cls.add1, (v5, v5), out_ty=R.Tensor((4, 1), dtype="float32"))
            v7: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, v3, v4)
            v8 = R.call_tir(cls.relu, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v8, v1
            R.output(gv)
        return gv
