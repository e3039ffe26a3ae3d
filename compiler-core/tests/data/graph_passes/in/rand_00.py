# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 99, #0).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 1), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.reshape(y, R.shape([4, 4]))
            v1: R.Tensor((4, 4), dtype="float32") = R.ewise_fma(v0, y, v0)
            v2: R.Tensor((4, 4), dtype="float32") = R.matmul(v1, y, out_dtype=None)
            v3: R.Tensor((4, 1), dtype="float32") = R.mean(v2, axis=[1], keepdims=True)
            v4: R.Tensor((4, 1), dtype="float32") = R.nn.relu(v3)
            v5: R.Tensor((4, 4), dtype="float32") = R.reshape(y, R.shape([4, 4]))
            v6: R.Tensor((4, 4), dtype="float32") = R.add(x, v2)
            v7: R.Tensor((4, 4), dtype="float32") = R.matmul(v2, v2, out_dtype=None)
            v8: R.Tensor((4, 4), dtype="float32") = R.multiply(v3, v6)
            v9: R.Tensor((4, 1), dtype="float32") = R.sum(v8, axis=[1], keepdims=True)
            gv: R.Tuple(R.Tensor((4, 1), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v9, v7)
            R.output(gv)
        return gv
