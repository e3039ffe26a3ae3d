# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3, 4), dtype="float32"):
        with R.dataflow():
            lv0: R.Tensor((3, 4), dtype="float32") = R.multiply(x, y)
            gv0: R.Tensor((3, 4), dtype="float32") = R.add(lv0, y)
            R.output(gv0)
        return gv0
