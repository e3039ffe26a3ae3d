# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_add_subtract_subtract(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), x: T.Buffer((T.int64(4), T.int64(4)), "float32"), v6: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract_intermediate_1: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        T_subtract_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v1[v_ax0, v_ax1], v2[v_ax0, v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = v1[v_ax0, v_ax1] + v2[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_add_intermediate[v_ax0, v_ax1], x[v_ax0, v_ax1])
                T.writes(T_subtract_intermediate[v_ax0, v_ax1])
                T_subtract_intermediate[v_ax0, v_ax1] = T_add_intermediate[v_ax0, v_ax1] - x[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v6[v_ax0, v_ax1], T_subtract_intermediate[v_ax0, v_ax1])
                T.writes(T_subtract_intermediate_1[v_ax0, v_ax1])
                T_subtract_intermediate_1[v_ax0, v_ax1] = v6[v_ax0, v_ax1] - T_subtract_intermediate[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(y[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(y[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def reshape(v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_reshape: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v2[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = v2[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.relu, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, x, v0)
            v2 = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v6 = R.call_tir(cls.reshape, (v2,), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv = R.call_tir(cls.fused_add_subtract_subtract, (v1, v2, x, v6), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv, v6
            R.output(gv)
        return gv
