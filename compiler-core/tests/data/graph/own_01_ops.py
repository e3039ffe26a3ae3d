# Not from the seeds: every built-in graph operator Tessel supports, nested calls (normalised into
# `lv`/`gv` bindings as TVM's parser does), `R.linear` (expanded like TVM), tuples, `R.const`,
# `R.shape`, a private function with attributes and a call of it, and a call_dps_packed with two
# outputs.
import tvm
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Ops:
    @R.function(private=True)
    def fused_matmul_add(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((2, 4), "float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv0 = R.matmul(x, w)
            gv = R.add(lv0, b)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 3), "float32"), b: R.Tensor((4,), "float32"),
             img: R.Tensor((1, 3, 8, 8), "float32"), k: R.Tensor((4, 3, 3, 3), "float32")):
        cls = Ops
        a = R.add(x, x)
        with R.dataflow():
            lv0 = R.add(R.multiply(x, x), R.nn.relu(x))
            lv1 = R.linear(lv0, w, b)
            lv2 = cls.fused_matmul_add(x, R.permute_dims(w), b)
            lv3 = R.ewise_fma(lv1, lv2, lv2)
            lv4 = R.subtract(lv3, R.const(1.5, "float32"))
            lv5 = R.divide(lv4, R.const(2.0, "float32"))
            s = R.sum(lv5, axis=1)
            m = R.mean(lv5, axis=[0, 1], keepdims=True)
            sm = R.nn.softmax(lv5)
            r = R.reshape(lv5, (-1,))
            r2 = R.reshape(r, R.shape([4, 2]))
            c = R.nn.conv2d(img, k, padding=1, strides=2)
            c2 = R.nn.conv2d(img, k)
            p = R.permute_dims(c, axes=[0, 2, 3, 1])
            t = (s, m)
            t0 = t[0]
            two = R.call_dps_packed("env.split", (lv5,), out_sinfo=[R.Tensor((2, 2), "float32"), R.Tensor((2, 2), "float32")])
            first = two[0]
            R.output(sm, r2, p, t0, first, c2)
        return (sm, r2, p, t0, first, R.add(a, a))
