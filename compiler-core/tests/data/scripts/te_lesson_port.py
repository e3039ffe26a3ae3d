# Seed 003 (TE lesson) ported to TVM 0.27, which has no TE schedules: the lesson's computations
# (matmul, linear + ReLU, fused add + ReLU, the small 8x8x8 matmul whose loops it prints after each
# schedule step) built with `te.create_prim_func`, and its schedule steps (split, reorder, tile,
# vectorize, parallel, unroll) done with `tvm.s_tir.Schedule`. Sizes are the lesson's small ones
# (8x8x8; 64 where it uses 1024) so that the reference interpreter can check every result.
# %%
import tvm
from tvm import te
import numpy as np

# %%
M, K, N = 8, 8, 8 # small for readable output
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
print(A, B, C)
print(C.op.axis, C.op.reduce_axis)
mod = tvm.IRModule({"main": te.create_prim_func([A, B, C])})
print("=== Naive ===")
mod.show()

# %%
s2 = tvm.s_tir.Schedule(mod)
i, j, kk = s2.get_loops(s2.get_sblock("C"))
io, ii = s2.split(i, [None, 4])
print("\n=== After split(i, 4) ===")
s2.mod.show()

# %%
s3 = tvm.s_tir.Schedule(mod)
i, j, kk = s3.get_loops(s3.get_sblock("C"))
io, ii = s3.split(i, [None, 4])
jo, ji = s3.split(j, [None, 4])
s3.reorder(io, jo, ii, ji)
print("\n=== After split + reorder (tiled) ===")
s3.mod.show()

# %%
def check(sch, m, k, n):
    f = tvm.build(sch.mod, target="llvm")
    a_np = np.random.uniform(-1, 1, (m, k)).astype("float32")
    b_np = np.random.uniform(-1, 1, (k, n)).astype("float32")
    c = tvm.runtime.tensor(np.zeros((m, n), dtype="float32"))
    f(tvm.runtime.tensor(a_np), tvm.runtime.tensor(b_np), c)
    np.testing.assert_allclose(c.numpy(), a_np @ b_np, rtol=1e-4, atol=1e-5)
    return "ok"

print(check(s2, M, K, N), check(s3, M, K, N))

# %%
# The optimized schedule (64 instead of 1024).
M, K, N = 64, 64, 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
sch = tvm.s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([A, B, C])}))
i, j, k_ax = sch.get_loops(sch.get_sblock("C"))
io, ii = sch.split(i, [None, 32])
jo, ji = sch.split(j, [None, 32])
ko, ki = sch.split(k_ax, [None, 4])
sch.reorder(io, jo, ko, ii, ji, ki)
jii, jiv = sch.split(ji, [None, 8])
sch.vectorize(jiv)
sch.parallel(io)
sch.unroll(ki)
# (Not printed: splitting the already split `ji` again leaves TVM's binding as
# `j_0 * 32 + (j_1_0 * 8 + j_1_1)`, which Tessel's split re-associates; see PENDING.md.)
print(sch.get_loops(sch.get_sblock("C")))
print(check(sch, M, K, N))

# %%
# Linear + ReLU: Y = relu(W @ X + b), as two computes.
M, N = 16, 32
W = te.placeholder((M, N), name="W")
X = te.placeholder((N,), name="X")
b = te.placeholder((M,), name="b")
j = te.reduce_axis((0, N), name="j")
# The lesson's spelling adds b[i] to the reduction, which TVM rejects (a reduction must be the
# whole body of its compute):
try:
    linear = te.compute((M,), lambda i: te.sum(W[i, j] * X[j], axis=j) + b[i])
except Exception as e:
    print("Reductions are only allowed at the top level of compute" in str(e))

# %%
linear = te.compute((M,), lambda i: te.sum(W[i, j] * X[j], axis=j), name="linear")
Y = te.compute((M,), lambda i: te.max(linear[i] + b[i], 0.0), name="Y")
f = te.create_prim_func([W, X, b, Y])
f.show()
lib = tvm.build(tvm.IRModule({"main": f}), target="llvm")
w_np = np.random.uniform(-1, 1, (M, N)).astype("float32")
x_np = np.random.uniform(-1, 1, (N,)).astype("float32")
b_np = np.random.uniform(-1, 1, (M,)).astype("float32")
y = tvm.runtime.tensor(np.zeros(M, dtype="float32"))
lib(tvm.runtime.tensor(w_np), tvm.runtime.tensor(x_np), tvm.runtime.tensor(b_np), y)
np.testing.assert_allclose(y.numpy(), np.maximum(w_np @ x_np + b_np, 0), rtol=1e-4, atol=1e-5)
print("linear + relu ok")

# %%
# Exercise: fused add + ReLU (1024 instead of 1024 * 1024), split by 8, vectorized, parallel.
N = 1024
A = te.placeholder((N,), name="A")
B = te.placeholder((N,), name="B")
C = te.compute((N,), lambda i: te.max(A[i] + B[i], tvm.tir.const(0.0, "float32")), name="C")
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
io, ii = sch.split(sch.get_loops(sch.get_sblock("C"))[0], [None, 8])
sch.vectorize(ii)
sch.parallel(io)
sch.mod.show()
func = tvm.build(sch.mod, target="llvm")
a = np.random.randn(N).astype("float32")
b = np.random.randn(N).astype("float32")
expected = np.maximum(a + b, 0.0)
c_tvm = tvm.runtime.tensor(np.zeros(N, dtype="float32"))
func(tvm.runtime.tensor(a), tvm.runtime.tensor(b), c_tvm)
np.testing.assert_allclose(c_tvm.numpy(), expected, rtol=1e-5)
print("✓ Fused add+relu correct")
