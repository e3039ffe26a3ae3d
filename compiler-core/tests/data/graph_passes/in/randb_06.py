# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #6).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(y, x, y)
            v1: R.Tensor((4, 4), dtype="float32") = R.subtract(x, v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.reshape(y, R.shape([4, 4]))
            v3: R.Tensor((4, 4), dtype="float32") = R.add(x, v2)
            v4: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v1, v0, v1)
            v5: R.Tensor((4, 4), dtype="float32") = R.multiply(v4, v3)
            v6: R.Tensor((4, 4), dtype="float32") = R.reshape(v1, R.shape([4, 4]))
            v7: R.Tensor((4, 1), dtype="float32") = R.mean(v5, axis=[1], keepdims=True)
            v8: R.Tensor((4, 4), dtype="float32") = R.add(v6, v6)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v8, v2)
            R.output(gv)
        return gv
