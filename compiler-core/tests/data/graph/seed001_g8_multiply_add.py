# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §7.3, lines 4951-4960: MyModule (only
#   `@R.function main` with the high-level operators `relax.op.multiply` / `relax.op.add`).
# Fixes: none. `relax.op.multiply` needs `from tvm import relax` (seed §7.2 imports it).
import tvm
from tvm import relax
from tvm.script import relax as R

@tvm.script.ir_module
class MyModule:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            lv0 = relax.op.multiply(x, y)
            gv0 = relax.op.add(lv0, y)
            R.output(gv0)
        return gv0
