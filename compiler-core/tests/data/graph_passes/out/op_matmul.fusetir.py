# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(3)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(3), T.int64(8)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * w[v_k, v_i1]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 3), dtype="float32"))
            R.output(gv)
        return gv
