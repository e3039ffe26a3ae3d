# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #5).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.permute_dims(x, axes=None)
            v1: R.Tensor((4, 4), dtype="float32") = R.matmul(y, y, out_dtype=None)
            v2: R.Tensor((4, 4), dtype="float32") = R.multiply(x, v0)
            v3: R.Tensor((4, 1), dtype="float32") = R.mean(v1, axis=[1], keepdims=True)
            v4: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, v0, v2)
            v5: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, y, x)
            v6: R.Tensor((4, 4), dtype="float32") = R.add(v5, v1)
            v7: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(v4, axis=-1)
            v8: R.Tensor((4, 1), dtype="float32") = R.mean(y, axis=[1], keepdims=True)
            v9: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, x, x)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v9, v0)
            R.output(gv)
        return gv
