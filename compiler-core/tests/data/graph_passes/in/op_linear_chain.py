# Pass input: matmul + add + relu + multiply chain (out-elemwise-fusable fusion)
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 3), dtype="float32") = R.matmul(x, w, out_dtype=None)
            lv1: R.Tensor((4, 3), dtype="float32") = R.add(lv, b)
            lv2: R.Tensor((4, 3), dtype="float32") = R.nn.relu(lv1)
            gv: R.Tensor((4, 3), dtype="float32") = R.multiply(lv2, lv2)
            R.output(gv)
        return gv
