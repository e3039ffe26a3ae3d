# Seed 003 (TE lesson, "Tensor Expressions"): every cell from `te.create_schedule` on, as the lesson
# writes them, with one change: the sizes (M = K = N = 1024 -> 64, the sweep's 512 -> 32, the
# exercise's N = 1024 * 1024 -> 1024) so that the reference interpreter runs every build, and a fixed
# seed: the lesson checks with rtol=1e-4 and no atol, which float32 cancellation in an element near
# zero fails for most data at any size (the kernel sums in loop order, NumPy differently); seed 3
# gives data the check passes on. The sweep's added checks use an atol. TVM 0.27
# removed TE schedules (`te_lesson.py` ends with its AttributeError); Tessel translates them into
# TensorIR schedules, and `tvm.lower` prints the scheduled function as TVMScript, as older TVM
# printed the lowered one. This output is reviewed by hand (no oracle can run these cells).
# Timings are the interpreter's and are masked.
# tessel-test: mask-between : GFLOPS
# %%
import tvm
from tvm import te
import numpy as np
np.random.seed(3)  # (Tessel: see the header.)
M, K, N = 64, 64, 64
# Declare inputs
A = te.placeholder((M, K), name="A", dtype="float32")
B = te.placeholder((K, N), name="B", dtype="float32")
# Declare computation
k = te.reduce_axis((0, K), name="k")
C = te.compute(
(M, N),
lambda i, j: te.sum(A[i, k] * B[k, j], axis=k),
name="C"
)
# Create default schedule (naive triple loop)
s = te.create_schedule(C.op)
# Lower to see the generated loops
print(tvm.lower(s, [A, B, C], simple_mode=True))

# %%
# Build for CPU
target = tvm.target.Target("llvm -mcpu=native")
func = tvm.build(s, [A, B, C], target=target, name="matmul_naive")
# Create input data
dev = tvm.cpu(0)
a_np = np.random.randn(M, K).astype("float32")
b_np = np.random.randn(K, N).astype("float32")
c_np = np.zeros((M, N), dtype="float32")
a_tvm = tvm.nd.array(a_np, dev)
b_tvm = tvm.nd.array(b_np, dev)
c_tvm = tvm.nd.array(c_np, dev)
# Execute
func(a_tvm, b_tvm, c_tvm)
# Verify
np.testing.assert_allclose(c_tvm.numpy(), a_np @ b_np, rtol=1e-4)
print("✓ Matmul result matches numpy")
# Benchmark
evaluator = func.time_evaluator(func.entry_name, dev, number=10, repeat=3)
result = evaluator(a_tvm, b_tvm, c_tvm)
gflops = 2.0 * M * K * N / 1e9 / result.mean
print(f"Naive matmul: {result.mean*1000:.2f} ms ({gflops:.1f} GFLOPS)")
# Typical: ~500 ms, ~4 GFLOPS (very slow!)

# %%
s = te.create_schedule(C.op)
i, j = C.op.axis # the M and N loops
k = C.op.reduce_axis[0] # the K reduction loop
# Split i into blocks of 32
io, ii = s[C].split(i, factor=32)
# Before: for i in range(1024)
# After: for io in range(32): ← outer: 1024/32 = 32 iterations
# for ii in range(32): ← inner: 32 iterations
print(tvm.lower(s, [A, B, C], simple_mode=True))

# %%
s = te.create_schedule(C.op)
i, j = C.op.axis
k = C.op.reduce_axis[0]
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
ko, ki = s[C].split(k, factor=4)
# Reorder for better cache locality
s[C].reorder(io, jo, ko, ii, ji, ki)
# Loop nest is now:
# for io (M tiles) ← outer tile over M
# for jo (N tiles) ← outer tile over N
# for ko (K tiles) ← outer tile over K
# for ii (32) ← inner M
# for ji (32) ← inner N
# for ki (4) ← inner K (accumulate)
# (Tessel check, not in the lesson: the loop nest.)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# %%
s = te.create_schedule(C.op)
i, j = C.op.axis
# tile = split both axes + reorder into [io, jo, ii, ji]
io, jo, ii, ji = s[C].tile(i, j, x_factor=32, y_factor=32)
# (Tessel check, not in the lesson: the loop nest.)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# %%
s = te.create_schedule(C.op)
i, j = C.op.axis
k = C.op.reduce_axis[0]
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=8) # 8 = AVX2 vector width
s[C].reorder(io, jo, ii, ji)
s[C].vectorize(ji) # innermost loop uses SIMD
# Generated code (conceptually):
# for io, jo, ii:
# C[..., ji:ji+8] = _mm256_fmadd_ps(A[...], B[..., ji:ji+8])
s[C].parallel(io) # parallelize outermost loop over CPU cores
# Generated code:
# #pragma omp parallel for
# for io in range(32): ← 32 chunks across cores
# for jo, ii, ji, ki:
# ...
# (Tessel check, not in the lesson: the loop nest.)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# %%
import tvm
from tvm import te
import numpy as np
M, K, N = 64, 64, 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
# ── Optimized schedule ──
s = te.create_schedule(C.op)
# Step 1: Tile the output dimensions
i, j = C.op.axis
k_ax = C.op.reduce_axis[0]
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
# Step 2: Split reduction for better reuse
ko, ki = s[C].split(k_ax, factor=4)
# Step 3: Reorder for locality
s[C].reorder(io, jo, ko, ii, ji, ki)
# Step 4: Vectorize innermost spatial loop
jii, jiv = s[C].split(ji, factor=8)
s[C].vectorize(jiv)
# Step 5: Parallelize outermost loop
s[C].parallel(io)
# Step 6: Unroll the reduction inner loop
s[C].unroll(ki)
# Build and benchmark
target = tvm.target.Target("llvm -mcpu=native")
func = tvm.build(s, [A, B, C], target=target, name="matmul_optimized")
dev = tvm.cpu(0)
a = tvm.nd.array(np.random.randn(M, K).astype("float32"), dev)
b = tvm.nd.array(np.random.randn(K, N).astype("float32"), dev)
c = tvm.nd.array(np.zeros((M, N), dtype="float32"), dev)
evaluator = func.time_evaluator(func.entry_name, dev, number=10, repeat=3)
result = evaluator(a, b, c)
gflops = 2.0 * M * K * N / 1e9 / result.mean
print(f"Optimized matmul: {result.mean*1000:.2f} ms ({gflops:.1f} GFLOPS)")
# Verify correctness
np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-4)

# %%
# (Tessel check, not in the lesson: the optimized loop nest and the built function's name.)
print(tvm.lower(s, [A, B, C], simple_mode=True))
print(func.entry_name)

# %%
# See the TIR output
tir_mod = tvm.lower(s, [A, B, C], simple_mode=True)
print(tir_mod)

# %%
import tvm
from tvm import te
import numpy as np
N = 1024
A = te.placeholder((N,), name="A")
B = te.placeholder((N,), name="B")
# TODO: Define C = relu(A + B) using te.compute
# Hint: use tvm.te.max(expr, 0.0) for relu
C = te.compute((N,), lambda i: te.max(A[i] + B[i], tvm.tir.const(0.0, "float32")), name="C")
# Create schedule, vectorize, and parallelize
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=8)
s[C].vectorize(ii)
s[C].parallel(io)
# Build, run, verify against numpy
func = tvm.build(s, [A, B, C], target="llvm -mcpu=native")
dev = tvm.cpu(0)
a = np.random.randn(N).astype("float32")
b = np.random.randn(N).astype("float32")
expected = np.maximum(a + b, 0.0)
a_tvm = tvm.nd.array(a, dev)
b_tvm = tvm.nd.array(b, dev)
c_tvm = tvm.nd.array(np.zeros(N, dtype="float32"), dev)
func(a_tvm, b_tvm, c_tvm)
np.testing.assert_allclose(c_tvm.numpy(), expected, rtol=1e-5)
print("✓ Fused add+relu correct")

# %%
# (Tessel check, not in the lesson: the exercise's loop nest.)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# %%
import tvm
from tvm import te
import numpy as np
M, K, N = 32, 32, 32
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
target = tvm.target.Target("llvm -mcpu=native")
dev = tvm.cpu(0)
configs = [
("Naive", lambda s, C: None),
("Tile 16", lambda s, C: s[C].tile(*C.op.axis, 16, 16)),
("Tile 32", lambda s, C: s[C].tile(*C.op.axis, 32, 32)),
("Tile 64", lambda s, C: s[C].tile(*C.op.axis, 64, 64)),
("Tile 32 + vec", lambda s, C: (
s[C].tile(*C.op.axis, 32, 32),
s[C].vectorize(s[C].op.axis[-1]) # won't work directly after tile
)),
]
# Benchmark each configuration and compare
for name, apply_schedule in configs:
    s = te.create_schedule(C.op)
    try:
        apply_schedule(s, C)
    except Exception:
        pass
    func = tvm.build(s, [A, B, C], target=target)
    a = tvm.nd.array(np.random.randn(M, K).astype("float32"), dev)
    b = tvm.nd.array(np.random.randn(K, N).astype("float32"), dev)
    c = tvm.nd.array(np.zeros((M, N), dtype="float32"), dev)
    ev = func.time_evaluator(func.entry_name, dev, number=10, repeat=3)
    t = ev(a, b, c).mean
    gflops = 2.0 * M * K * N / 1e9 / t
    print(f" {name:20s}: {t*1000:8.2f} ms ({gflops:6.1f} GFLOPS)")
    # (Tessel check, not in the lesson: the sweep's results are right.)
    np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-4, atol=1e-4)

# %%
M, K, N = 8, 8, 8 # small for readable output
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
# Print TIR at each stage
s1 = te.create_schedule(C.op)
print("=== Naive ===")
print(tvm.lower(s1, [A, B, C], simple_mode=True))
s2 = te.create_schedule(C.op)
io, ii = s2[C].split(C.op.axis[0], factor=4)
print("\n=== After split(i, 4) ===")
print(tvm.lower(s2, [A, B, C], simple_mode=True))
s3 = te.create_schedule(C.op)
io, ii = s3[C].split(C.op.axis[0], factor=4)
jo, ji = s3[C].split(C.op.axis[1], factor=4)
s3[C].reorder(io, jo, ii, ji)
print("\n=== After split + reorder (tiled) ===")
print(tvm.lower(s3, [A, B, C], simple_mode=True))
# Compare the loop structures visually
