# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mean(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_divide: T.Buffer((T.int64(1), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        x_red = T.sblock_alloc_buffer((T.int64(1), T.int64(8)))
        for ax0, ax1, k0 in T.grid(T.int64(1), T.int64(8), T.int64(4)):
            with T.sblock("x_red"):
                v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
                T.reads(x[v_k0, v_ax1])
                T.writes(x_red[v_ax0, v_ax1])
                with T.init():
                    x_red[v_ax0, v_ax1] = T.float32(0.0)
                x_red[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] + x[v_k0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(1), T.int64(8)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] / T.float32(4.0)

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((1, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.mean, (x,), out_ty=R.Tensor((1, 8), dtype="float32"))
            R.output(gv)
        return gv
