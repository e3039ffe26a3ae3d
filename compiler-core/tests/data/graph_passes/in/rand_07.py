# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #7).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.add(y, y)
            v1: R.Tensor((4, 1), dtype="float32") = R.sum(x, axis=[1], keepdims=True)
            v2: R.Tensor((4, 4), dtype="float32") = R.add(x, v0)
            v3: R.Tensor((4, 4), dtype="float32") = R.permute_dims(x, axes=None)
            v4: R.Tensor((4, 4), dtype="float32") = R.reshape(x, R.shape([4, 4]))
            v5: R.Tensor((4, 4), dtype="float32") = R.reshape(v2, R.shape([4, 4]))
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v5, v3)
            R.output(gv)
        return gv
