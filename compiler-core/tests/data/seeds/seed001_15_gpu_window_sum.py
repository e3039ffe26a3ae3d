# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §6.1.4, lines 4268-4279: MyModuleWindowSum.
# Fixes: none. Note: old `T.Buffer[(1027,), "float32"]` subscript syntax.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleWindowSum:
    @T.prim_func
    def main(A: T.Buffer[(1027,), "float32"],
             B: T.Buffer[(1024,), "float32"]) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.grid(1024):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
