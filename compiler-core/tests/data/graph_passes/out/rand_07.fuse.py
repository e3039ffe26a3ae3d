# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), y_1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], y_1[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = y[v_ax0, v_ax1] + y_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def reshape(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_reshape: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = x[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def sum(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), x_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("x_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(x[v_ax0, v_k1])
                T.writes(x_red[v_ax0, v_ax1])
                with T.init():
                    x_red[v_ax0, v_ax1] = T.float32(0.0)
                x_red[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] + x[v_ax0, v_k1]

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

    @R.function(private=True)
    def fused_add_add_reshape(y: R.Tensor((4, 4), dtype="float32"), x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add, (y, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            v2 = R.call_tir(cls.add, (x, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv = R.call_tir(cls.reshape, (v2,), out_ty=R.Tensor((4, 4), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((4, 4), dtype="float32") = cls.fused_add_add_reshape(y, x)
            v1 = R.call_tir(cls.sum, (x,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v3 = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv, v3
            R.output(gv)
        return gv
