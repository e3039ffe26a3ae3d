# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §3.4.3, lines 1838-1856: a bare
#   `@R.function def main(...)` with two dataflow blocks (not inside a module).
# Fixes: re-joined the wrapped `R.call_dps_packed(...)` lines.
import tvm
from tvm.script import tir as T
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, "m"), "float32"),
         w0: R.Tensor(("n", "m"), "float32"),
         b0: R.Tensor(("n", ), "float32"),
         w1: R.Tensor(("k", "n"), "float32"),
         b1: R.Tensor(("k", ), "float32")):
    m, n, k = T.int64(), T.int64(), T.int64()

    with R.dataflow():
        lv0 = R.call_dps_packed("linear0", (x, w0, b0), R.Tensor((1, n), "float32"))
        gv0 = R.call_dps_packed("relu0", (lv0, ), R.Tensor((1, n), "float32"))
        R.output(gv0)

    with R.dataflow():
        out = R.call_dps_packed("linear0", (gv0, w1, b1), R.Tensor((1, k), "float32"))
        R.output(out)
    return out
