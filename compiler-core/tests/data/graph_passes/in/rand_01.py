# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #1).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 1), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(x, axis=-1)
            v1: R.Tensor((4, 4), dtype="float32") = R.subtract(x, v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.matmul(x, v0, out_dtype=None)
            v3: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v2)
            v4: R.Tensor((4, 4), dtype="float32") = R.permute_dims(v3, axes=None)
            v5: R.Tensor((4, 4), dtype="float32") = R.matmul(x, y, out_dtype=None)
            v6: R.Tensor((4, 4), dtype="float32") = R.subtract(x, v2)
            v7: R.Tensor((4, 1), dtype="float32") = R.sum(v4, axis=[1], keepdims=True)
            v8: R.Tensor((4, 1), dtype="float32") = R.sum(v6, axis=[1], keepdims=True)
            v9: R.Tensor((4, 4), dtype="float32") = R.subtract(v8, x)
            v10: R.Tensor((4, 4), dtype="float32") = R.multiply(v5, v3)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 1), dtype="float32")) = (v10, v8)
            R.output(gv)
        return gv
