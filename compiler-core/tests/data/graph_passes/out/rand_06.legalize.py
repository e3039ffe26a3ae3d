# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mean(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_divide: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        y_red = T.sblock_alloc_buffer((T.int64(4), T.int64(1)))
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("y_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(y[v_ax0, v_k1])
                T.writes(y_red[v_ax0, v_ax1])
                with T.init():
                    y_red[v_ax0, v_ax1] = T.float32(0.0)
                y_red[v_ax0, v_ax1] = y_red[v_ax0, v_ax1] + y[v_ax0, v_k1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = y_red[v_ax0, v_ax1] / T.float32(4.0)

    @T.prim_func(private=True, s_tir=True)
    def relu(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(y[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(y[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def reshape(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_reshape: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = y[(v_ax1 // T.int64(4) + v_ax0) % T.int64(4), v_ax1 % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def sum(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), y_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("y_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(y[v_ax0, v_k1])
                T.writes(y_red[v_ax0, v_ax1])
                with T.init():
                    y_red[v_ax0, v_ax1] = T.float32(0.0)
                y_red[v_ax0, v_ax1] = y_red[v_ax0, v_ax1] + y[v_ax0, v_k1]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.mean, (y,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v1 = R.call_tir(cls.reshape, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v2 = R.call_tir(cls.sum, (y,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v3 = R.call_tir(cls.sum, (y,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v4 = R.call_tir(cls.relu, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v5 = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v6 = R.call_tir(cls.reshape, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v6, v6
            R.output(gv)
        return gv
