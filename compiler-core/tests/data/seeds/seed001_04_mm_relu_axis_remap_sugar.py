# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.4.3 "Sugar for Block Axes Binding",
#   lines 560-588: MyModuleWithAxisRemapSugar.
# Fixes: the code block is split by a page break ("(continues on next page)"); the second half lost its
#   indentation in the PDF extraction. Re-indented (parameters aligned under `A:`, body at 8 spaces).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleWithAxisRemapSugar:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
