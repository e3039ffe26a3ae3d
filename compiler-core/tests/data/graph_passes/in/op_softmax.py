# Pass input: R.nn.softmax
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((4, 8), dtype="float32") = R.nn.softmax(x, axis=-1)
            R.output(gv)
        return gv
