# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_subtract_relu_relu(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute_intermediate_1: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_subtract_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        compute_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v0[v_ax0, v_ax1])
                T.writes(T_subtract_intermediate[v_ax0, v_ax1])
                T_subtract_intermediate[v_ax0, v_ax1] = v0[v_ax0, v_ax1] - v0[v_ax0, v_ax1]
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_subtract_intermediate[v_i0, v_i1])
                T.writes(compute_intermediate[v_i0, v_i1])
                compute_intermediate[v_i0, v_i1] = T.max(T_subtract_intermediate[v_i0, v_i1], T.float32(0.0))
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute1"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(compute_intermediate[v_i0, v_i1])
                T.writes(compute_intermediate_1[v_i0, v_i1])
                compute_intermediate_1[v_i0, v_i1] = T.max(compute_intermediate[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def multiply(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), y_1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], y_1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = y[v_ax0, v_ax1] * y_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def subtract(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), y_1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], y_1[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = y[v_ax0, v_ax1] - y_1[v_ax0, v_ax1]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.multiply, (y, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1 = R.call_tir(cls.subtract, (y, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv = R.call_tir(cls.fused_subtract_relu_relu, (v0,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv, v1
            R.output(gv)
        return gv
