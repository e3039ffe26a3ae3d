# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #5).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.permute_dims(x, axes=None)
            v1: R.Tensor((4, 1), dtype="float32") = R.sum(v0, axis=[1], keepdims=True)
            v2: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(v0, axis=-1)
            v3: R.Tensor((4, 4), dtype="float32") = R.subtract(x, y)
            v4: R.Tensor((4, 1), dtype="float32") = R.mean(x, axis=[1], keepdims=True)
            v5: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(v2, axis=-1)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v5, v3)
            R.output(gv)
        return gv
