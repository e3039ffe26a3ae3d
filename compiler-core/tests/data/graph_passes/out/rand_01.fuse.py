# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], v0[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * v0[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def multiply(v5: T.Buffer((T.int64(4), T.int64(4)), "float32"), v3: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v5[v_ax0, v_ax1], v3[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = v5[v_ax0, v_ax1] * v3[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v2[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(v2[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def softmax(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_softmax_norm: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(4),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(4), T.int64(4)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(4),))
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(x[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], x[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(x[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(T_softmax_exp[v_i0, v_k])
                T.writes(T_softmax_expsum[v_i0])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
                T.writes(T_softmax_norm[v_i0, v_i1])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @T.prim_func(private=True, s_tir=True)
    def subtract(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), v0: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], v0[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = x[v_ax0, v_ax1] - v0[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def subtract1(v8: T.Buffer((T.int64(4), T.int64(1)), "float32"), x: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v8[v_ax0, T.int64(0)], x[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = v8[v_ax0, T.int64(0)] - x[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def sum(v4: T.Buffer((T.int64(4), T.int64(4)), "float32"), v4_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("v4_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(v4[v_ax0, v_k1])
                T.writes(v4_red[v_ax0, v_ax1])
                with T.init():
                    v4_red[v_ax0, v_ax1] = T.float32(0.0)
                v4_red[v_ax0, v_ax1] = v4_red[v_ax0, v_ax1] + v4[v_ax0, v_k1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(v3: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_transpose: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v3[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = v3[v_ax1, v_ax0]

    @R.function(private=True)
    def fused_matmul_multiply(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32"), v3: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            v5 = R.call_tir(cls.matmul, (x, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv = R.call_tir(cls.multiply, (v5, v3), out_ty=R.Tensor((4, 4), dtype="float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_subtract_sum(x: R.Tensor((4, 4), dtype="float32"), v2: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 1), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            v6 = R.call_tir(cls.subtract, (x, v2), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv = R.call_tir(cls.sum, (v6,), out_ty=R.Tensor((4, 1), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 1), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.softmax, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1 = R.call_tir(cls.subtract, (x, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v2 = R.call_tir(cls.matmul, (x, v0), out_ty=R.Tensor((4, 4), dtype="float32"))
            v3 = R.call_tir(cls.relu, (v2,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v4 = R.call_tir(cls.transpose, (v3,), out_ty=R.Tensor((4, 4), dtype="float32"))
            lv: R.Tensor((4, 4), dtype="float32") = cls.fused_matmul_multiply(x, y, v3)
            lv1: R.Tensor((4, 1), dtype="float32") = cls.fused_subtract_sum(x, v2)
            v7 = R.call_tir(cls.sum, (v4,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v9 = R.call_tir(cls.subtract1, (lv1, x), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 1), dtype="float32")) = lv, lv1
            R.output(gv)
        return gv
