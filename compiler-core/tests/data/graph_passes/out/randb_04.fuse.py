# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(v1[v_i0, v_k], v0[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + v1[v_i0, v_k] * v0[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def mean(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_divide: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
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
    def relu(v7: T.Buffer((T.int64(4), T.int64(1)), "float32"), compute: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v7[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(v7[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def subtract(y: T.Buffer((T.int64(4), T.int64(4)), "float32"), x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(y[v_ax0, v_ax1], x[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = y[v_ax0, v_ax1] - x[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def sum(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), v1_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("v1_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(v1[v_ax0, v_k1])
                T.writes(v1_red[v_ax0, v_ax1])
                with T.init():
                    v1_red[v_ax0, v_ax1] = T.float32(0.0)
                v1_red[v_ax0, v_ax1] = v1_red[v_ax0, v_ax1] + v1[v_ax0, v_k1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_transpose: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v0[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = v0[v_ax1, v_ax0]

    @R.function(private=True)
    def fused_transpose_transpose(v0: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            v2 = R.call_tir(cls.transpose, (v0,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv = R.call_tir(cls.transpose, (v2,), out_ty=R.Tensor((4, 4), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.subtract, (y, x), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, y, v0)
            lv: R.Tensor((4, 4), dtype="float32") = cls.fused_transpose_transpose(v0)
            v3 = R.call_tir(cls.transpose, (v0,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.mean, (y,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v5 = R.call_tir(cls.matmul, (v1, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v6 = R.call_tir(cls.mean, (v5,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v7 = R.call_tir(cls.sum, (v1,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v8 = R.call_tir(cls.matmul, (x, v5), out_ty=R.Tensor((4, 4), dtype="float32"))
            v9 = R.call_tir(cls.relu, (v7,), out_ty=R.Tensor((4, 1), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv, v8
            R.output(gv)
        return gv
