# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def sum(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), x_red: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, k1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("x_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(x[v_ax0, v_k1])
                T.writes(x_red[v_ax0])
                with T.init():
                    x_red[v_ax0] = T.float32(0.0)
                x_red[v_ax0] = x_red[v_ax0] + x[v_ax0, v_k1]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.sum, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
