# Pass input: R.mean with keepdims
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((1, 8), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 8), dtype="float32") = R.mean(x, axis=[0], keepdims=True)
            R.output(gv)
        return gv
