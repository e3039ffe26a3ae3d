# Seed 002 (TVM tutorial "Blitz Course to TensorIR"): the tensor-expression cell, after the
# tutorial's imports; re-indented (the extraction lost it). A run of the function is added.
# %%
import tvm
from tvm.ir.module import IRModule
from tvm.script import tir as T
import numpy as np

# %%
from tvm import te

A = te.placeholder((8,), dtype="float32", name="A")
B = te.compute((8,), lambda *i: A(*i) + 1.0, name="B")
func = te.create_prim_func([A, B])
ir_module_from_te = IRModule({"main": func})
print(ir_module_from_te.script())

# %%
# (Tessel check, not in the tutorial.)
mod = tvm.build(ir_module_from_te, target="llvm")
a = tvm.runtime.tensor(np.arange(8, dtype="float32"))
b = tvm.runtime.tensor(np.zeros(8, dtype="float32"))
mod(a, b)
print(b)
