# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mean(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_divide: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
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
    def multiply(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), y_1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], y_1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = y[v_ax0, v_ax1] * y_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v2[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(v2[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def reshape(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_reshape: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v1[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = v1[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def subtract(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), y_1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
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
            v2 = R.call_tir(cls.subtract, (v0, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v3 = R.call_tir(cls.multiply, (y, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.relu, (v2,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v5 = R.call_tir(cls.mean, (x,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v6: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(x, v0, v1)
            v7 = R.call_tir(cls.reshape, (v1,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v8 = R.call_tir(cls.relu, (v4,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v8, v1
            R.output(gv)
        return gv
