# Pass input: a random program of tests/graph_passes.rs (`random_program`, seed 123, #7).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            v0: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(y, axis=-1)
            v1: R.Tensor((4, 4), dtype="float32") = R.matmul(v0, y, out_dtype=None)
            v2: R.Tensor((4, 4), dtype="float32") = R.add(x, v1)
            v3: R.Tensor((4, 4), dtype="float32") = R.add(x, y)
            v4: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(y, axis=-1)
            v5: R.Tensor((4, 4), dtype="float32") = R.multiply(v1, v1)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (v5, v3)
            R.output(gv)
        return gv
