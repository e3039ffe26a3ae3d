# Seed 000 (notebook "Tensor Program Abstraction in Action"), the tensor-expression cells In[37],
# In[42], In[41], In[46], after the notebook's imports. The matmul cells use M = K = N = 1024 in the
# notebook: about 2e9 reference-interpreter steps per run, so this copy sets them to 64 (the only
# change); at 1024 they are the CPU backend's business (PENDING.md). Timings are masked.
# tessel-test: mask-after Baseline:
# tessel-test: mask-after after transformation:
# %%
import tvm
from tvm.ir.module import IRModule
from tvm.script import tir as T
import numpy as np

# %%
# namespace for tensor expression utility
from tvm import te

# declare the computation using the expression API
A = te.placeholder((128, ), name="A")
B = te.placeholder((128, ), name="B")
C = te.compute((128,), lambda i: A[i] + B[i], name="C")

# create a function with the specified list of arguments. 
func = te.create_prim_func([A, B, C])
# mark that the function name is main
func = func.with_attr("global_symbol", "main")
ir_mod_from_te = IRModule({"main": func})

ir_mod_from_te.show()

# %%
from tvm import te

M = 64
K = 64
N = 64

# The default tensor type in tvm
dtype = "float32"

target = "llvm"
dev = tvm.device(target, 0)

# Algorithm
k = te.reduce_axis((0, K), "k")
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")

# Default schedule
func = te.create_prim_func([A, B, C])
func = func.with_attr("global_symbol", "main")
ir_module = IRModule({"main": func})
ir_module.show()


func = tvm.build(ir_module, target="llvm")  # The module for CPU backends.

a = tvm.runtime.tensor(np.random.rand(M, K).astype(dtype), dev)
b = tvm.runtime.tensor(np.random.rand(K, N).astype(dtype), dev)
c = tvm.runtime.tensor(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)

evaluator = func.time_evaluator(func.entry_name, dev, number=1)
print("Baseline: %f" % evaluator(a, b, c).mean)

# %%
# (Tessel check, not in the notebook: the result is a matmul.)
np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-5)

# %%
sch = tvm.s_tir.Schedule(ir_module)
print(type(sch))
block_c = sch.get_sblock("C")
# Get loops surronding the block
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size]) #yi = 32 -> 내부 루프, yo =외부부 루프
xo, xi = sch.split(x, [None, block_size]) #xi = 32 -> 내부 루프, xo =외부부 루프

sch.reorder(yo, xo, k, yi, xi)
sch.mod.show()

func = tvm.build(sch.mod, target="llvm")  # The module for CPU backends.

c = tvm.runtime.tensor(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)

evaluator = func.time_evaluator(func.entry_name, dev, number=1)
print("after transformation: %f" % evaluator(a, b, c).mean)

# %%
sch = tvm.s_tir.Schedule(ir_module)
print(type(sch))
block_c = sch.get_sblock("C")
# Get loops surronding the block
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size]) #yi = 32 -> 내부 루프, yo =외부부 루프
xo, xi = sch.split(x, [None, block_size]) #xi = 32 -> 내부 루프, xo =외부부 루프

sch.reorder(yo, xo, k, yi, xi)
sch.parallel(yo)
sch.mod.show()

func = tvm.build(sch.mod, target="llvm")  # The module for CPU backends.

c = tvm.runtime.tensor(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)

evaluator = func.time_evaluator(func.entry_name, dev, number=1)
print("after transformation: %f" % evaluator(a, b, c).mean)

# %%
np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-5)
