# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((n, 4), dtype="float32"), R.Tensor(("n * 3",), dtype="float32"), R.Tensor(dtype="float32", ndim=2), R.Tensor((n, 4), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((3, 4), dtype="float32") = R.permute_dims(w, axes=None)
            lv0: R.Tensor((n, 4), dtype="float32") = R.matmul(x, lv, out_dtype=None)
            lv1: R.Tensor((n * 3,), dtype="float32") = R.reshape(x, R.shape([n * 3]))
            lv2: R.Tensor(dtype="float32", ndim=2) = R.add(x, y)
            lv3 = R.call_dps_packed("env.double", (lv0,), out_ty=R.Tensor((n, 4), dtype="float32"))
            R.output(lv0, lv1, lv2, lv3)
        return (lv0, lv1, lv2, lv3)
