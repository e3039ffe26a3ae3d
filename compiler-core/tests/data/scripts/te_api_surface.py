# Tensor expressions in scripts (not a course cell): reprs, attributes, operators and errors, as TVM 0.27 answers them.
import tvm
from tvm import te, topi

A = te.placeholder((128, 4), name="A")
print(A, type(A))
print(A.shape, A.shape[0], A.shape[0] * 2, A.dtype, A.ndim, A.name, A.op.name)
print(A.shape[1] == 4, A.shape[0] < 3, int(A.shape[0]), len(A.shape))
k = te.reduce_axis((0, 4), name="k")
print(k)
C = te.compute((128,), lambda i: te.sum(A[i, k], axis=k), name="C")
print(C.op.axis, C.op.reduce_axis, C.op.axis[0].var, type(C.op.axis[0].var))
print(C.op.num_outputs, C.op.output(0), len(C.op.input_tensors))
i = C.op.axis[0].var
print(i + 1, i * 2 - 1, i // 4, i % 4, -i, 2 - i, i < 3, i >= 2, type(i < 3))
print(tvm.tir.const(0.0, "float32"), tvm.tir.const(1, "int64"), tvm.tir.const(3))
B = te.placeholder((4,), name="B", dtype="float16")
print(B, B.dtype)
D = A + A
print(D, D.op.name, topi.nn.relu(A).op.name, topi.add(A, 1.0).op.name)
M, N = te.compute((2,), lambda i: (i, i + 1), name="MN")
print(M, N, M.name, N.name)
n = te.var("n")
P = te.placeholder((n, 4), name="P")
print(P, n, type(n))
try:
    if i < 3:
        pass
except ValueError as e:
    print("ValueError:", e)
try:
    te.compute((4,), lambda i, j: A[i, j])
except TypeError as e:
    print("TypeError:", e)
print(te.create_prim_func([M, N]))
