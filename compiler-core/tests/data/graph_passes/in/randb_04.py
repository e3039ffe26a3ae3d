# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #4).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.subtract(y, x)
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, y, v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.permute_dims(v0, axes=None)
            v3: R.Tensor((4, 4), dtype="float32") = R.permute_dims(v0, axes=None)
            v4: R.Tensor((4, 1), dtype="float32") = R.mean(y, axis=[1], keepdims=True)
            v5: R.Tensor((4, 4), dtype="float32") = R.matmul(v1, v0, out_dtype=None)
            v6: R.Tensor((4, 1), dtype="float32") = R.mean(v5, axis=[1], keepdims=True)
            v7: R.Tensor((4, 1), dtype="float32") = R.sum(v1, axis=[1], keepdims=True)
            v8: R.Tensor((4, 4), dtype="float32") = R.matmul(x, v5, out_dtype=None)
            v9: R.Tensor((4, 1), dtype="float32") = R.nn.relu(v7)
            v10: R.Tensor((4, 4), dtype="float32") = R.permute_dims(v2, axes=None)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v10, v8)
            R.output(gv)
        return gv
