# Source: seed 002 (002_a38b9a90d4ef2316.txt, TVM tutorial "Blitz Course to TensorIR"), "Create an
#   IRModule", lines 23-37: MyModule (T.handle parameters + T.match_buffer, `B[vi] = A[vi] + 1.0`).
# Fixes: the seed (a web page saved as text) lost ALL indentation; re-indented with 4 spaces per level
#   following the Python block structure (class > def > for > with > statements). No token was changed.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        # We exchange data between function by handles, which are similar to pointer.
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        # Create buffer from handles.
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            # A block is an abstraction for computation.
            with T.block("B"):
                # Define a spatial block iterator and bind it to value i.
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0
