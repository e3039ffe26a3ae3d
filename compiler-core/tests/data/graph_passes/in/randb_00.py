# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #0).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.add(y, x)
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, y, y)
            v2: R.Tensor((4, 4), dtype="float32") = R.add(x, v0)
            v3: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(y, axis=-1)
            v4: R.Tensor((4, 4), dtype="float32") = R.nn.relu(v0)
            v5: R.Tensor((4, 1), dtype="float32") = R.sum(v1, axis=[1], keepdims=True)
            v6: R.Tensor((4, 1), dtype="float32") = R.add(v5, v5)
            v7: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, v3, v4)
            v8: R.Tensor((4, 4), dtype="float32") = R.nn.relu(y)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v8, v1)
            R.output(gv)
        return gv
