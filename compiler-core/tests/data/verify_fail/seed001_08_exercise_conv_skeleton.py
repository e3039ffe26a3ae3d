# expect: error: `...` (Ellipsis) is not a TensorIR statement (exercise skeleton body)
#   Moved here from seeds/: TVM rejects this seed program even in its original form (see below).
# TVM 0.27: rejected at parse: DiagnosticError: error: Parsing resulted in unexpected type <class 'ellipsis'> [underlined: `...`]
# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.5.1 "Exercise 2: 2D Convolution",
#   lines 1183-1190: the exercise skeleton MyConv (no parameters, body `# TODO` + `...`).
# Fixes: none (the driver code after the class is not part of the module and is omitted).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyConv:
    @T.prim_func
    def conv():
        T.func_attr({"global_symbol": "conv", "tir.noalias": True})
        # TODO
        ...
