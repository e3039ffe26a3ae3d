# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #2).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(y, axis=-1)
            v1: R.Tensor((4, 4), dtype="float32") = R.permute_dims(v0, axes=None)
            v2: R.Tensor((4, 4), dtype="float32") = R.reshape(x, R.shape([4, 4]))
            v3: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(v1, axis=-1)
            v4: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v0)
            v5: R.Tensor((4, 4), dtype="float32") = R.multiply(v1, v3)
            v6: R.Tensor((4, 4), dtype="float32") = R.reshape(v2, R.shape([4, 4]))
            v7: R.Tensor((4, 4), dtype="float32") = R.matmul(v6, v3, out_dtype=None)
            v8: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(v7, axis=-1)
            v9: R.Tensor((4, 4), dtype="float32") = R.subtract(x, v8)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v9, v3)
            R.output(gv)
        return gv
