# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #1).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.nn.relu(x)
            v1: R.Tensor((4, 4), dtype="float32") = R.add(v0, v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.subtract(x, y)
            v3: R.Tensor((4, 4), dtype="float32") = R.reshape(v0, R.shape([4, 4]))
            v4: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(v1, axis=-1)
            v5: R.Tensor((4, 4), dtype="float32") = R.multiply(y, v3)
            v6: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v1)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v6, v0)
            R.output(gv)
        return gv
