# Negative case: `vectorize` of a loop over a block without iterators (a running sum that
# indexes with the loop variable): TVM finds no affine binding for it and refuses.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Prefix:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(31):
            with T.block("prefix"):
                A[i + 1] = A[i + 1] + A[i]
# --- schedule ---
block = sch.get_block("prefix")
i, = sch.get_loops(block)
sch.vectorize(i)
# --- expect-error: does not have compact dataflow ---
# tessel-error: is required to have an affine binding
