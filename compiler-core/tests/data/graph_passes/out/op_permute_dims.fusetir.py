# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def transpose(x: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"), T_transpose: T.Buffer((T.int64(4), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(4), T.int64(2), T.int64(3)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(x[v_ax1, v_ax2, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2])
                T_transpose[v_ax0, v_ax1, v_ax2] = x[v_ax1, v_ax2, v_ax0]

    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((4, 2, 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((4, 2, 3), dtype="float32"))
            R.output(gv)
        return gv
