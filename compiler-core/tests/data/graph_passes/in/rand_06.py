# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #6).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 1), dtype="float32") = R.mean(y, axis=[1], keepdims=True)
            v1: R.Tensor((4, 4), dtype="float32") = R.reshape(y, R.shape([4, 4]))
            v2: R.Tensor((4, 1), dtype="float32") = R.sum(y, axis=[1], keepdims=True)
            v3: R.Tensor((4, 1), dtype="float32") = R.sum(y, axis=[1], keepdims=True)
            v4: R.Tensor((4, 4), dtype="float32") = R.nn.relu(y)
            v5: R.Tensor((4, 4), dtype="float32") = R.nn.relu(x)
            v6: R.Tensor((4, 4), dtype="float32") = R.reshape(y, R.shape([4, 4]))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v6, v6)
            R.output(gv)
        return gv
