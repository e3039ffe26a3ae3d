# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def fused_matmul_add(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv0: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w, out_dtype=None)
            gv: R.Tensor((2, 4), dtype="float32") = R.add(lv0, b)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((4,), dtype="float32"), img: R.Tensor((1, 3, 8, 8), dtype="float32"), k: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((4, 2), dtype="float32"), R.Tensor((1, 4, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 3), dtype="float32")):
        cls = Module
        a: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.multiply(x, x)
            lv1: R.Tensor((2, 3), dtype="float32") = R.nn.relu(x)
            lv0: R.Tensor((2, 3), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((3, 4), dtype="float32") = R.permute_dims(w, axes=None)
            lv4: R.Tensor((2, 4), dtype="float32") = R.matmul(lv0, lv3, out_dtype=None)
            lv1_1: R.Tensor((2, 4), dtype="float32") = R.add(lv4, b)
            lv6: R.Tensor((3, 4), dtype="float32") = R.permute_dims(w, axes=None)
            lv2: R.Tensor((2, 4), dtype="float32") = cls.fused_matmul_add(x, lv6, b)
            lv3_1: R.Tensor((2, 4), dtype="float32") = R.ewise_fma(lv1_1, lv2, lv2)
            lv4_1: R.Tensor((2, 4), dtype="float32") = R.subtract(lv3_1, R.const(1.5, "float32"))
            lv5: R.Tensor((2, 4), dtype="float32") = R.divide(lv4_1, R.const(2.0, "float32"))
            s: R.Tensor((2,), dtype="float32") = R.sum(lv5, axis=[1], keepdims=False)
            m: R.Tensor((1, 1), dtype="float32") = R.mean(lv5, axis=[0, 1], keepdims=True)
            sm: R.Tensor((2, 4), dtype="float32") = R.nn.softmax(lv5, axis=-1)
            r: R.Tensor((8,), dtype="float32") = R.reshape(lv5, R.shape([8]))
            r2: R.Tensor((4, 2), dtype="float32") = R.reshape(r, R.shape([4, 2]))
            c: R.Tensor((1, 4, 4, 4), dtype="float32") = R.nn.conv2d(img, k, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            c2: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(img, k, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            p: R.Tensor((1, 4, 4, 4), dtype="float32") = R.permute_dims(c, axes=[0, 2, 3, 1])
            t: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((1, 1), dtype="float32")) = s, m
            t0: R.Tensor((2,), dtype="float32") = t[0]
            two = R.call_dps_packed("env.split", (lv5,), out_ty=[R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")])
            first: R.Tensor((2, 2), dtype="float32") = two[0]
            R.output(sm, r2, c2, p, t0, first)
        gv1: R.Tensor((2, 3), dtype="float32") = R.add(a, a)
        return (sm, r2, p, t0, first, gv1)
