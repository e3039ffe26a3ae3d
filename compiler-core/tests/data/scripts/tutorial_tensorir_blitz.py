# Seed 002 (TVM tutorial "Blitz Course to TensorIR"), the runnable cells in order. The extraction lost
# all indentation; re-indented. The tensor-expression cell is tutorial_te.py; left out (PENDING.md): the CUDA build
# (the oracle machine has no GPU).
# %%
import tvm
from tvm.ir.module import IRModule
from tvm.script import tir as T
import numpy as np

# %%
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

ir_module = MyModule
print(type(ir_module))
print(ir_module.script())

# %%
mod = tvm.build(ir_module, target="llvm")  # The module for CPU backends.
print(type(mod))

# %%
a = tvm.nd.array(np.arange(8).astype("float32"))
b = tvm.nd.array(np.zeros((8,)).astype("float32"))
mod(a, b)
print(a)
print(b)

# %%
sch = tvm.tir.Schedule(ir_module)
print(type(sch))

# %%
# Get block by its name
block_b = sch.get_block("B")
# Get loops surrounding the block
(i,) = sch.get_loops(block_b)
# Tile the loop nesting.
i_0, i_1, i_2 = sch.split(i, factors=[2, 2, 2])
print(sch.mod.script())

# %%
sch.reorder(i_0, i_2, i_1)
print(sch.mod.script())

# %%
sch.bind(i_0, "blockIdx.x")
sch.bind(i_2, "threadIdx.x")
print(sch.mod.script())
