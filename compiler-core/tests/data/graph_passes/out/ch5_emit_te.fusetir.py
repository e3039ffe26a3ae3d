# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_te_matmul_te_relu(A: T.Buffer((T.int64(128), T.int64(128)), "float32"), B: T.Buffer((T.int64(128), T.int64(128)), "float32"), relu_intermediate: T.Buffer((T.int64(128), T.int64(128)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((T.int64(128), T.int64(128)))
        for i, j, k in T.grid(T.int64(128), T.int64(128), T.int64(128)):
            with T.sblock("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(A[v_i, v_k], B[v_k, v_j])
                T.writes(matmul_intermediate[v_i, v_j])
                with T.init():
                    matmul_intermediate[v_i, v_j] = T.float32(0.0)
                matmul_intermediate[v_i, v_j] = matmul_intermediate[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
        for i0, i1 in T.grid(T.int64(128), T.int64(128)):
            with T.sblock("relu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(matmul_intermediate[v_i0, v_i1])
                T.writes(relu_intermediate[v_i0, v_i1])
                relu_intermediate[v_i0, v_i1] = T.max(matmul_intermediate[v_i0, v_i1], T.float32(0.0))

    @R.function
    def main(A: R.Tensor((128, 128), dtype="float32"), B: R.Tensor((128, 128), dtype="float32")) -> R.Tensor((128, 128), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_te_matmul_te_relu, (A, B), out_ty=R.Tensor((128, 128), dtype="float32"))
            R.output(gv)
        return gv
