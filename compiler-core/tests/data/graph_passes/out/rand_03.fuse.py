# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v1[v_ax0, v_ax1], v2[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = v1[v_ax0, v_ax1] + v2[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def multiply(v4: T.Buffer((T.int64(4), T.int64(4)), "float32"), v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v4[v_ax0, v_ax1], v2[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = v4[v_ax0, v_ax1] * v2[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v1[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(v1[v_i0, v_i1], T.float32(0.0))

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
    def subtract(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], v1[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = y[v_ax0, v_ax1] - v1[v_ax0, v_ax1]

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
    def fused_reshape_subtract_multiply(x: R.Tensor((4, 4), dtype="float32"), v2: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.subtract, (v2, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv = R.call_tir(cls.multiply, (v4, v2), out_ty=R.Tensor((4, 4), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v1 = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v2 = R.call_tir(cls.subtract, (y, v1), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv: R.Tensor((4, 4), dtype="float32") = cls.fused_reshape_subtract_multiply(x, v2)
            v3 = R.call_tir(cls.reshape, (v1,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v5 = R.call_tir(cls.relu, (v1,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v6 = R.call_tir(cls.add, (v1, v2), out_ty=R.Tensor((4, 4), dtype="float32"))
            v7: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, v6, v5)
            v9 = R.call_tir(cls.multiply, (v7, v6), out_ty=R.Tensor((4, 4), dtype="float32"))
            v10: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v1, lv, v2)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v10, v3
            R.output(gv)
        return gv
