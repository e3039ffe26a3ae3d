# Negative case: `split` of a loop that carries an annotation: TVM splits only loops without
# annotations or thread bindings.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class Scale:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.serial(64, annotations={"pragma_hint": 1}):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] * T.float32(5)
# --- schedule ---
block = sch.get_block("B")
i, = sch.get_loops(block)
sch.split(i, factors=[None, 8])
# --- expect-error: has annotation or thread binding ---
# tessel-error: has annotation or thread binding
