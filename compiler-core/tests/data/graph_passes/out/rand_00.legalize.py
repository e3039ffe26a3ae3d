# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], v2[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + v2[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul(v1: T.Buffer((T.int64(4), T.int64(4)), "float32"), y: T.Buffer((T.int64(4), T.int64(4)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(v1[v_i0, v_k], y[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + v1[v_i0, v_k] * y[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def mean(v2: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_divide: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        v2_red = T.sblock_alloc_buffer((T.int64(4), T.int64(1)))
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("v2_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(v2[v_ax0, v_k1])
                T.writes(v2_red[v_ax0, v_ax1])
                with T.init():
                    v2_red[v_ax0, v_ax1] = T.float32(0.0)
                v2_red[v_ax0, v_ax1] = v2_red[v_ax0, v_ax1] + v2[v_ax0, v_k1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v2_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = v2_red[v_ax0, v_ax1] / T.float32(4.0)

    @T.prim_func(private=True, s_tir=True)
    def multiply(v3: T.Buffer((T.int64(4), T.int64(1)), "float32"), v6: T.Buffer((T.int64(4), T.int64(4)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(v3[v_ax0, T.int64(0)], v6[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = v3[v_ax0, T.int64(0)] * v6[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def relu(v3: T.Buffer((T.int64(4), T.int64(1)), "float32"), compute: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(v3[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(v3[v_i0, v_i1], T.float32(0.0))

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
    def sum(v8: T.Buffer((T.int64(4), T.int64(4)), "float32"), v8_red: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(4)):
            with T.sblock("v8_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(v8[v_ax0, v_k1])
                T.writes(v8_red[v_ax0, v_ax1])
                with T.init():
                    v8_red[v_ax0, v_ax1] = T.float32(0.0)
                v8_red[v_ax0, v_ax1] = v8_red[v_ax0, v_ax1] + v8[v_ax0, v_k1]

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 1), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.reshape, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, y, v0)
            v2 = R.call_tir(cls.matmul, (v1, y), out_ty=R.Tensor((4, 4), dtype="float32"))
            v3 = R.call_tir(cls.mean, (v2,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v4 = R.call_tir(cls.relu, (v3,), out_ty=R.Tensor((4, 1), dtype="float32"))
            v5 = R.call_tir(cls.reshape, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
            v6 = R.call_tir(cls.add, (x, v2), out_ty=R.Tensor((4, 4), dtype="float32"))
            v7 = R.call_tir(cls.matmul, (v2, v2), out_ty=R.Tensor((4, 4), dtype="float32"))
            v8 = R.call_tir(cls.multiply, (v3, v6), out_ty=R.Tensor((4, 4), dtype="float32"))
            v9 = R.call_tir(cls.sum, (v8,), out_ty=R.Tensor((4, 1), dtype="float32"))
            gv: R.Tuple(R.Tensor((4, 1), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = v9, v7
            R.output(gv)
        return gv
