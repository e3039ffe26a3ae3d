# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv2d(x: T.Buffer((T.int64(1), T.int64(3), T.int64(8), T.int64(8)), "float32"), k: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(10), T.int64(10)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(10), T.int64(10)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(9) and T.int64(1) <= v_i3 and v_i3 < T.int64(9), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(4), T.int64(4), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy * T.int64(2) + v_ry, v_xx * T.int64(2) + v_rx], k[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy * T.int64(2) + v_ry, v_xx * T.int64(2) + v_rx] * k[v_ff, v_rc, v_ry, v_rx]

    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), k: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 4, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.conv2d, (x, k), out_ty=R.Tensor((1, 4, 4, 4), dtype="float32"))
            R.output(gv)
        return gv
