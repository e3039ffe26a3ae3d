# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #2).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.multiply(y, y)
            v1: R.Tensor((4, 4), dtype="float32") = R.subtract(y, y)
            v2: R.Tensor((4, 4), dtype="float32") = R.subtract(v0, v0)
            v3: R.Tensor((4, 4), dtype="float32") = R.multiply(y, y)
            v4: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v2)
            v5: R.Tensor((4, 1), dtype="float32") = R.mean(x, axis=[1], keepdims=True)
            v6: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(x, v0, v1)
            v7: R.Tensor((4, 4), dtype="float32") = R.reshape(v1, R.shape([4, 4]))
            v8: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v4)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v8, v1)
            R.output(gv)
        return gv
