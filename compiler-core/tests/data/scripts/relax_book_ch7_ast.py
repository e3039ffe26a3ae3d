# MLC book chapter 7 §7.3: walking a Relax function's AST by attribute (function, SeqExpr body,
# dataflow block, bindings, a binding's var and value, a call's op and args), as notebook cells.
# Unchanged from the book.
import numpy as np
import tvm
from tvm import relax, topi
from tvm.ir.module import IRModule
from tvm.script import relax as R
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            lv0 = relax.op.multiply(x, y)
            gv0 = relax.op.add(lv0, y)
            R.output(gv0)
        return gv0

# %%
relax_func = MyModule["main"]

# %%
type(relax_func)

# %%
relax_func.params

# %%
func_body = relax_func.body
type(func_body)

# %%
func_body.blocks

# %%
dataflow_block = func_body.blocks[0]

# %%
dataflow_block.bindings

# %%
binding = dataflow_block.bindings[0]

# %%
binding.var

# %%
binding.value

# %%
type(dataflow_block), type(binding), len(dataflow_block.bindings)

# %%
call = dataflow_block.bindings[1].value
call.op.name, call.args, func_body.body, isinstance(call, relax.Call)
