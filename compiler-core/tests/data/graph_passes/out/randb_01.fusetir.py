# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), v0_1: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v0[v_ax0, v_ax1], v0_1[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = v0[v_ax0, v_ax1] + v0_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(x[v_i0, v_i1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1 = R.call_tir(cls.add, (v0, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v6 = R.call_tir(cls.relu, (v1,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v6, v0
            R.output(gv)
        return gv
