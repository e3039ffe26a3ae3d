# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #3).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.nn.relu(y)
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, x, v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.nn.relu(x)
            v3: R.Tensor((4, 4), dtype="float32") = R.add(v1, v2)
            v4: R.Tensor((4, 4), dtype="float32") = R.subtract(v3, x)
            v5: R.Tensor((4, 4), dtype="float32") = R.subtract(v0, v1)
            v6: R.Tensor((4, 4), dtype="float32") = R.reshape(v2, R.shape([4, 4]))
            v7: R.Tensor((4, 4), dtype="float32") = R.add(x, v5)
            v8: R.Tensor((4, 4), dtype="float32") = R.subtract(v6, v4)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v8, v6)
            R.output(gv)
        return gv
