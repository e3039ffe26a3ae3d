# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #4).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 1), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.nn.relu(x)
            v1: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.add(v0, y)
            v3: R.Tensor((4, 1), dtype="float32") = R.mean(v1, axis=[1], keepdims=True)
            v4: R.Tensor((4, 4), dtype="float32") = R.permute_dims(x, axes=None)
            v5: R.Tensor((4, 4), dtype="float32") = R.multiply(v3, y)
            v6: R.Tensor((4, 4), dtype="float32") = R.matmul(v4, v0, out_dtype=None)
            v7: R.Tensor((4, 4), dtype="float32") = R.permute_dims(v5, axes=None)
            v8: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v7, v4, v4)
            v9: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v0)
            v10: R.Tensor((4, 4), dtype="float32") = R.reshape(v1, R.shape([4, 4]))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 1), dtype="float32")) = (v10, v3)
            R.output(gv)
        return gv
