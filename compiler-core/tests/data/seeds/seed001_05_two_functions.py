# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.4.3, lines 622-657: MyModuleWithTwoFunctions.
# Fixes: the code block is split by a page break; the second half (`def mm(...)` onwards) lost one
#   level of indentation in the PDF extraction, leaving `mm` and `relu` at column 0 / outside the class.
#   Re-indented both functions into the class body (4 spaces), as the prose ("an IRModule with two
#   functions") requires.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleWithTwoFunctions:
    @T.prim_func
    def mm(A: T.Buffer((128, 128), "float32"),
           B: T.Buffer((128, 128), "float32"),
           Y: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def relu(A: T.Buffer((128, 128), "float32"),
              B: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": True})
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))
