# The TE lesson's (seed 003) optimized matmul schedule and its add+ReLU exercise, written with
# older TVM's TE schedules (`te.create_schedule`, `s[C].split/reorder/vectorize/parallel/unroll`),
# which Tessel translates into TensorIR; built with `tvm.build(s, [A, B, C], ...)` for the CPU.
import numpy as np
import tvm
from tvm import te

M, K, N = 64, 64, 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
i, j = C.op.axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
ko, ki = s[C].split(C.op.reduce_axis[0], factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)
jii, jiv = s[C].split(ji, factor=8)
s[C].vectorize(jiv)
s[C].parallel(io)
s[C].unroll(ki)
func = tvm.build(s, [A, B, C], target="llvm", name="matmul_optimized")
print(func.entry_name)
a = (np.arange(M * K, dtype="float32").reshape(M, K) % 7) - 3
b = (np.arange(K * N, dtype="float32").reshape(K, N) % 5) - 2
c = tvm.nd.array(np.zeros((M, N), dtype="float32"))
func(tvm.nd.array(a), tvm.nd.array(b), c)
print("matmul exact:", np.array_equal(c.numpy(), a @ b))

N = 1000
A = te.placeholder((N,), name="A")
B = te.placeholder((N,), name="B")
C = te.compute((N,), lambda i: te.max(A[i] + B[i], tvm.tir.const(0.0, "float32")), name="C")
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=8)
s[C].vectorize(ii)
s[C].parallel(io)
func = tvm.build(s, [A, B, C], target="llvm")
x = np.linspace(-1, 1, N).astype("float32")
y = np.linspace(1, -2, N).astype("float32")
z = tvm.nd.array(np.zeros(N, dtype="float32"))
func(tvm.nd.array(x), tvm.nd.array(y), z)
print(func.entry_name, "add+relu exact:", np.array_equal(z.numpy(), np.maximum(x + y, 0.0)))
