# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), y: T.Buffer((T.int64(8),), "float32"), T_add: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], y[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + y[v_ax1]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((4, 8), dtype="float32"))
            R.output(gv)
        return gv
