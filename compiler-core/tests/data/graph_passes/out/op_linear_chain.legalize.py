# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(lv: T.Buffer((T.int64(4), T.int64(3)), "float32"), b: T.Buffer((T.int64(3),), "float32"), T_add: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv[v_ax0, v_ax1], b[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = lv[v_ax0, v_ax1] + b[v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(3)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(3), T.int64(8)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * w[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def multiply(lv2: T.Buffer((T.int64(4), T.int64(3)), "float32"), lv2_1: T.Buffer((T.int64(4), T.int64(3)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv2[v_ax0, v_ax1], lv2_1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = lv2[v_ax0, v_ax1] * lv2_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(lv1: T.Buffer((T.int64(4), T.int64(3)), "float32"), compute: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(lv1[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(lv1[v_i0, v_i1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 3), dtype="float32"))
            lv1 = R.call_tir(cls.add, (lv, b), out_ty=R.Tensor((4, 3), dtype="float32"))
            lv2 = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 3), dtype="float32"))
            gv = R.call_tir(cls.multiply, (lv2, lv2), out_ty=R.Tensor((4, 3), dtype="float32"))
            R.output(gv)
        return gv
