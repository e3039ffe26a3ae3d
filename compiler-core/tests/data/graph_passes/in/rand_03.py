# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #3).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.reshape(x, R.shape([4, 4]))
            v1: R.Tensor((4, 4), dtype="float32") = R.permute_dims(x, axes=None)
            v2: R.Tensor((4, 4), dtype="float32") = R.subtract(y, v1)
            v3: R.Tensor((4, 4), dtype="float32") = R.reshape(v1, R.shape([4, 4]))
            v4: R.Tensor((4, 4), dtype="float32") = R.subtract(v2, v0)
            v5: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v1)
            v6: R.Tensor((4, 4), dtype="float32") = R.add(v1, v2)
            v7: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, v6, v5)
            v8: R.Tensor((4, 4), dtype="float32") = R.multiply(v4, v2)
            v9: R.Tensor((4, 4), dtype="float32") = R.multiply(v7, v6)
            v10: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v1, v8, v2)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v10, v3)
            R.output(gv)
        return gv
