# expect: error: `...` (Ellipsis) is not a TensorIR statement (exercise skeleton body)
#   Moved here from seeds/: TVM rejects this seed program even in its original form (see below).
# TVM 0.27: rejected at parse: DiagnosticError: error: Parsing resulted in unexpected type <class 'ellipsis'> [underlined: `...`]
# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.5.1 "Exercise 1: Broadcast Add",
#   lines 1115-1122: the exercise skeleton MyAdd (no parameters, body `# TODO` + `...`).
# Fixes: none (the driver code after the class is not part of the module and is omitted).
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyAdd:
    @T.prim_func
    def add():
        T.func_attr({"global_symbol": "add", "tir.noalias": True})
        # TODO
        ...
