# Not from the seeds: symbolic shapes through built-in operators (TVM deduces `n * 3` for the
# reshape and keeps `n` through matmul), and a dimension that cannot be proven equal (`n` vs 2),
# which makes the sum's shape unknown (rank only).
import tvm
from tvm.script import tir as T
from tvm.script import relax as R

@tvm.script.ir_module
class Symbolic:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32"), w: R.Tensor((4, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        n = T.int64()
        with R.dataflow():
            lv0 = R.matmul(x, R.permute_dims(w))
            lv1 = R.reshape(x, (-1,))
            lv2 = R.add(x, y)
            lv3 = R.call_dps_packed("env.double", (lv0,), R.Tensor((n, 4), "float32"))
            R.output(lv0, lv1, lv2, lv3)
        return (lv0, lv1, lv2, lv3)
