# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §5.3.3, lines 3663-3674: Module, the printed
#   result of a BlockBuilder (only `@R.function main`, old spelling: bare `Tensor(...)` annotations,
#   `R.call_tir(te_matmul, (A, B), (128, 128), dtype="float32")`, `gv: Tensor(...) = lv1`).
# Fixes: none. Tessel accepts this old spelling (TVM 0.27 does not: "Undefined variable: Tensor"), but
#   the module does not define `te_matmul` / `te_relu` (the TE functions were shown with `.show()`
#   only): a parse-failure case, `# expect:` names what Tessel reports.
#   `derived_ch5_block_builder_emit_te.py` is TVM 0.27's own output of the same BlockBuilder code.
# expect: error: `te_matmul` is not a function of this module
import tvm
from tvm.script import relax as R

@tvm.script.ir_module
class Module:
    @R.function
    def main(A: Tensor((128, 128), "float32"), B: Tensor((128, 128), "float32")):
        # block 0
        with R.dataflow():
            lv = R.call_tir(te_matmul, (A, B), (128, 128), dtype="float32")
            lv1 = R.call_tir(te_relu, (lv,), (128, 128), dtype="float32")
            gv: Tensor((128, 128), "float32") = lv1
            R.output(gv)
        return gv
