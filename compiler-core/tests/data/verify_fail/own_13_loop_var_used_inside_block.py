# expect: error: loop variable `i` is used inside block "C" (`A[i]`); inside a block only its block iterators (`vi`) may be used
# TVM 0.27: rejected at parse: DiagnosticError: error: Program is not well-formed. If this is deliberate, consider setting check_well_formed in the top-level decorator to False (e.g., @I.ir_module(check_well_formed=False) or @R.function(check_well_formed=False)). -- Well-formedness check failed: Loop iterator var i is defined outside of any block, but is used inside the non-opaque current block "C".
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[i]
