# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_matmul_add_relu_multiply(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(3)), "float32"), b: T.Buffer((T.int64(3),), "float32"), T_multiply_intermediate: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(3)))
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(3)))
        compute_intermediate = T.sblock_alloc_buffer((T.int64(4), T.int64(3)))
        for i0, i1, k in T.grid(T.int64(4), T.int64(3), T.int64(8)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w[v_k, v_i1])
                T.writes(matmul_intermediate[v_i0, v_i1])
                with T.init():
                    matmul_intermediate[v_i0, v_i1] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1] = matmul_intermediate[v_i0, v_i1] + x[v_i0, v_k] * w[v_k, v_i1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate[v_ax0, v_ax1], b[v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = matmul_intermediate[v_ax0, v_ax1] + b[v_ax1]
        for i0, i1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add_intermediate[v_i0, v_i1])
                T.writes(compute_intermediate[v_i0, v_i1])
                compute_intermediate[v_i0, v_i1] = T.max(T_add_intermediate[v_i0, v_i1], T.float32(0.0))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(compute_intermediate[v_ax0, v_ax1])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1])
                T_multiply_intermediate[v_ax0, v_ax1] = compute_intermediate[v_ax0, v_ax1] * compute_intermediate[v_ax0, v_ax1]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_matmul_add_relu_multiply, (x, w, b), out_ty=R.Tensor((4, 3), dtype="float32"))
            R.output(gv)
        return gv
