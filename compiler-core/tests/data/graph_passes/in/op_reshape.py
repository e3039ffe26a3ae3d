# Pass input: R.reshape
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((2, 16), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 16), dtype="float32") = R.reshape(x, R.shape([2, 16]))
            R.output(gv)
        return gv
