# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §6.1.3, lines 4198-4210: MyModuleVecAdd
#   (`for i in T.grid(1024)` with a single extent, `T.axis.remap("S", [i])`).
# Fixes: none.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleVecAdd:
    @T.prim_func
    def main(A: T.Buffer((1024,), "float32"),
            B: T.Buffer((1024,), "float32"),
            C: T.Buffer((1024,), "float32")) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.grid(1024):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]
