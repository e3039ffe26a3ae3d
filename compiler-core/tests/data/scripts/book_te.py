# Seed 001 (MLC book): ch.2 §2.4.6 "Generate TensorIR code using Tensor Expression" and the
# tensor-expression part of ch.5 §5.3.1 (te_matmul / te_relu / fused create_prim_func), in order.
# The PDF copy lost the cells' shared imports; they are the book's (`import tvm`, `IPython`).
# %%
import IPython
import numpy as np
import tvm
from tvm.ir.module import IRModule
from tvm.script import tir as T

# %%
from tvm import te

A = te.placeholder((128, 128), "float32", name="A")
B = te.placeholder((128, 128), "float32", name="B")
k = te.reduce_axis((0, 128), "k")
Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k),  
    name="Y")
C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0), name="C")

# %%
te_func = te.create_prim_func([A, B, C]).with_attr({"global_symbol": "mm_relu"})
MyModuleFromTE = tvm.IRModule({"mm_relu": te_func})
IPython.display.Code(MyModuleFromTE.script(), language="python")

# %%
from tvm import te

# %%
A = te.placeholder((128, 128), name="A", dtype="float32")
B = te.placeholder((128, 128), name="B", dtype="float32")

# %%
type(A)

# %%
A.shape

# %%
def te_matmul(A: te.Tensor, B: te.Tensor) -> te.Tensor:
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k),
                      name="matmul")

# %%
C = te_matmul(A, B)

# %%
te.create_prim_func([A, B, C]).show()

# %%
def te_relu(A: te.Tensor) -> te.Tensor:
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")

# %%
X1 = te.placeholder((10,), name="X1", dtype="float32")
Y1 = te_relu(X1)
te.create_prim_func([X1, Y1]).show()

# %%
X2 = te.placeholder((10, 20), name="X1", dtype="float32")
Y2 = te_relu(X2)
te.create_prim_func([X2, Y2]).show()

# %%
C = te_matmul(A, B)
D = te_relu(C)

# %%
te.create_prim_func([A, B, D]).show()

# %%
te.create_prim_func([A, B, C, D]).show()

# %%
# (Tessel check, not in the book: the fused function computes relu(A @ B).)
f = tvm.build(IRModule({"main": te.create_prim_func([A, B, D])}), target="llvm")
a_np = np.random.uniform(-1, 1, (128, 128)).astype("float32")
b_np = np.random.uniform(-1, 1, (128, 128)).astype("float32")
d = tvm.runtime.tensor(np.zeros((128, 128), dtype="float32"))
f(tvm.runtime.tensor(a_np), tvm.runtime.tensor(b_np), d)
np.testing.assert_allclose(d.numpy(), np.maximum(a_np @ b_np, 0), rtol=1e-4, atol=1e-5)
print("fused matmul + relu matches NumPy")
