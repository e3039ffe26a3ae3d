# MLC book chapter 3 §3.4.3: a Relax function written outside a module (two dataflow blocks, which
# the parser joins into one), then put into a module with IRModule.from_expr. The cell is the
# book's; the prints after it are added to show what was built (not `mod.show()`: TVM 0.27
# prints its symbolic sizes as module-level TypeVars, which no parser reads back).
import tvm
from tvm.script import relax as R
from tvm.script import tir as T

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

print(type(main))
print(len(main.params), len(main.body.blocks), len(main.body.blocks[0].bindings))
mod = tvm.IRModule.from_expr(main)
print(mod.get_global_vars())
last = mod["main"].body.blocks[0].bindings[2]
print(last.var, last.value.args, mod["main"].params)
