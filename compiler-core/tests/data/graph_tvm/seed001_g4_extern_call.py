# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

k = TypeVar("k")
m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, m), dtype="float32"), w0: R.Tensor((n, m), dtype="float32"), b0: R.Tensor((n,), dtype="float32"), w1: R.Tensor((k, n), dtype="float32"), b1: R.Tensor((k,), dtype="float32")) -> R.Tensor((1, k), dtype="float32"):
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), out_ty=R.Tensor((1, n), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), out_ty=R.Tensor((1, n), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), out_ty=R.Tensor((1, k), dtype="float32"))
            R.output(out)
        return out
