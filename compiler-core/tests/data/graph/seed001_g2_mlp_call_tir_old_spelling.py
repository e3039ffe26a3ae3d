# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §3.4, lines 1675-1689: MyModule with only
#   `@R.function main` in the course's *old* Relax spelling: bare `Tensor((1, 784), "float32")`
#   annotations, `R.call_tir(linear0, (x, w0, b0), (1, 128), dtype="float32")` with a bare function
#   name and an output shape + dtype, and `relax.output(out)`.
# Fixes: none. Tessel accepts this old spelling (TVM 0.27 does not: "Undefined variable: Tensor"), but
#   the module does not define `linear0`, `relu0` or `linear1` (the text shows only `main`, side by
#   side with NumPy code), so the callees cannot be resolved: a parse-failure case, `# expect:` names
#   what Tessel reports. `seed001_g2b_mlp_call_tir_completed.py` is the completed module.
# expect: error: `linear0` is not a function of this module
import tvm
from tvm.script import relax as R

@tvm.script.ir_module
class MyModule:
    @R.function
    def main(x: Tensor((1, 784), "float32"),
             w0: Tensor((128, 784), "float32"),
             b0: Tensor((128,), "float32"),
             w1: Tensor((10, 128), "float32"),
             b1: Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_tir(linear0, (x, w0, b0), (1, 128), dtype="float32")
            lv1 = R.call_tir(relu0, (lv0, ), (1, 128), dtype="float32")
            out = R.call_tir(linear1, (lv1, w1, b1), (1, 10), dtype="float32")
            relax.output(out)
        return out
