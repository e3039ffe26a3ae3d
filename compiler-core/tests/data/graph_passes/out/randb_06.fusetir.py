# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_reshape_add(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_add_intermediate: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_reshape_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v1[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape_intermediate[v_ax0, v_ax1])
                T_reshape_intermediate[v_ax0, v_ax1] = v1[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_reshape_intermediate[v_ax0, v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = T_reshape_intermediate[v_ax0, v_ax1] + T_reshape_intermediate[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def reshape(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_reshape: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = y[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def subtract(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], v0[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = x[v_ax0, v_ax1] - v0[v_ax0, v_ax1]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, x, y)
            v1 = R.call_tir(cls.subtract, (x, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v2 = R.call_tir(cls.reshape, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv1 = R.call_tir(cls.fused_reshape_add, (v1,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv1, v2
            R.output(gv)
        return gv
