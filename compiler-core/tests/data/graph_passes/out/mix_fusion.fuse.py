# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(lv1: T.Buffer((T.int64(4), T.int64(8)), "float32"), y: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv1[v_ax0, v_ax1], y[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = lv1[v_ax0, v_ax1] + y[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(8)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(8), T.int64(8)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * w[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def multiply(lv1: T.Buffer((T.int64(4), T.int64(8)), "float32"), lv2: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv1[v_ax0, v_ax1], lv2[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = lv1[v_ax0, v_ax1] * lv2[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(lv: T.Buffer((T.int64(4), T.int64(8)), "float32"), compute: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(lv[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(lv[v_i0, v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def reshape(lv8: T.Buffer((T.int64(8), T.int64(4)), "float32"), T_reshape: T.Buffer((T.int64(2), T.int64(16)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(16)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv8[(v_ax0 * T.int64(4) + v_ax1 // T.int64(4)) % T.int64(8), v_ax1 % T.int64(4)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = lv8[(v_ax0 * T.int64(4) + v_ax1 // T.int64(4)) % T.int64(8), v_ax1 % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def softmax(lv4: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_softmax_norm: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(4),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(4), T.int64(8)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(4),))
        for i0, k in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(lv4[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], lv4[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(lv4[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(lv4[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(T_softmax_exp[v_i0, v_k])
                T.writes(T_softmax_expsum[v_i0])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
                T.writes(T_softmax_norm[v_i0, v_i1])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @T.prim_func(private=True, s_tir=True)
    def subtract(lv10: T.Buffer((T.int64(4), T.int64(8)), "float32"), y: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_subtract: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv10[v_ax0, v_ax1], y[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = lv10[v_ax0, v_ax1] - y[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def sum(lv4: T.Buffer((T.int64(4), T.int64(8)), "float32"), lv4_red: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, k1 in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("lv4_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(lv4[v_ax0, v_k1])
                T.writes(lv4_red[v_ax0])
                with T.init():
                    lv4_red[v_ax0] = T.float32(0.0)
                lv4_red[v_ax0] = lv4_red[v_ax0] + lv4[v_ax0, v_k1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(lv7: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_transpose: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(8), T.int64(4)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv7[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = lv7[v_ax1, v_ax0]

    @R.function(private=True)
    def fused_matmul_relu_add_multiply_add(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 8), dtype="float32"))
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 8), dtype="float32"))
            lv2 = R.call_tir(cls.add, (lv1, y), out_ty=R.Tensor((4, 8), dtype="float32"))
            lv3 = R.call_tir(cls.multiply, (lv1, lv2), out_ty=R.Tensor((4, 8), dtype="float32"))
            gv = R.call_tir(cls.add, (lv3, y), out_ty=R.Tensor((4, 8), dtype="float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_softmax_multiply(lv4: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv6 = R.call_tir(cls.softmax, (lv4,), out_ty=R.Tensor((4, 8), dtype="float32"))
            gv = R.call_tir(cls.multiply, (lv6, lv6), out_ty=R.Tensor((4, 8), dtype="float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_transpose_reshape(lv7: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((2, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv8 = R.call_tir(cls.transpose, (lv7,), out_ty=R.Tensor((8, 4), dtype="float32"))
            gv = R.call_tir(cls.reshape, (lv8,), out_ty=R.Tensor((2, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2, 16), dtype="float32"), R.Tensor((4, 8), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = cls.fused_matmul_relu_add_multiply_add(x, w, y)
            lv5 = R.call_tir(cls.sum, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
            lv1: R.Tensor((4, 8), dtype="float32") = cls.fused_softmax_multiply(lv)
            lv2: R.Tensor((2, 16), dtype="float32") = cls.fused_transpose_reshape(lv1)
            lv10: R.Tensor((4, 8), dtype="float32") = R.ewise_fma(lv1, y, x)
            lv11 = R.call_tir(cls.subtract, (lv10, y), out_ty=R.Tensor((4, 8), dtype="float32"))
            gv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2, 16), dtype="float32"), R.Tensor((4, 8), dtype="float32")) = lv5, lv2, lv11
            R.output(gv)
        return gv
