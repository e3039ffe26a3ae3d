# expect: error: buffer `A` is 2-D but is loaded with 1 index (`A[vi]`)
# TVM 0.27: rejected at parse: DiagnosticError: error: Mismatched type on argument #1 when calling: `script.ir_builder.tirx.BufferStore(0: ir.Var, 1: ir.Expr, 2: Array<ir.Expr>) -> void`. Expected `ir.Expr` but got `ir.TensorRegion` [underlined: `C[vi] = A[vi]`]
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
