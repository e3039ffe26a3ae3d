# Pass input: R.matmul
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((4, 3), dtype="float32") = R.matmul(x, w, out_dtype=None)
            R.output(gv)
        return gv
