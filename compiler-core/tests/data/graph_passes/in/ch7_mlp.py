# Pass input (copy of tests/data/graph/derived_ch7_mlp_high_level_ops.py).
# Source: seed 001 (MLC book) §7.4 `create_model()`: the MLP from `relax.op.matmul`,
#   `relax.op.permute_dims`, `relax.op.add`, `relax.op.nn.relu`; the weights are parameters
#   (`w0, b0, w1, b1`) instead of `relax.const(mlp_params[...])`, so no metadata is printed.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), w0: R.Tensor((128, 784), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((784, 128), dtype="float32") = R.permute_dims(w0, axes=None)
            lv1: R.Tensor((1, 128), dtype="float32") = R.matmul(x, lv, out_dtype=None)
            lv2: R.Tensor((1, 128), dtype="float32") = R.add(lv1, b0)
            lv3: R.Tensor((1, 128), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((128, 10), dtype="float32") = R.permute_dims(w1, axes=None)
            lv5: R.Tensor((1, 10), dtype="float32") = R.matmul(lv3, lv4, out_dtype=None)
            lv6: R.Tensor((1, 10), dtype="float32") = R.add(lv5, b1)
            gv: R.Tensor((1, 10), dtype="float32") = lv6
            R.output(gv)
        return gv
