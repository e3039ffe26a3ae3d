# Native only (too slow for the reference interpreter in a test): the MLC
# book ch.2 bmm_relu exercise transformed to its target program, and the
# notebook (seed 000) 1024x1024x1024 matmul with its blocking and parallel
# schedules (In[42], In[41], In[46]; TVMScript for the TE function, since
# the cells build it with te.create_prim_func). Results are checked against
# NumPy inside the script.
import numpy as np
import tvm
from tvm.ir.module import IRModule
from tvm.script import tir as T

@tvm.script.ir_module
class MyBmmRelu:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"),
                 B: T.Buffer((16, 128, 128), "float32"),
                 C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((16, 128, 128), "float32")
        for n, i, j, k in T.grid(16, 128, 128, 128):
            with T.block("Y"):
                vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
                with T.init():
                    Y[vn, vi, vj] = T.float32(0)
                Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
        for n, i, j in T.grid(16, 128, 128):
            with T.block("C"):
                vn, vi, vj = T.axis.remap("SSS", [n, i, j])
                C[vn, vi, vj] = T.max(Y[vn, vi, vj], T.float32(0))

sch = tvm.tir.Schedule(MyBmmRelu)
Y = sch.get_block("Y", func_name="bmm_relu")
b, i, j, k = sch.get_loops(Y)
j0, j1 = sch.split(j, factors=[None, 8])
k0, k1 = sch.split(k, factors=[None, 4])
sch.reorder(j0, k0, k1, j1)
C = sch.get_block("C", func_name="bmm_relu")
sch.reverse_compute_at(C, j0)
sch.parallel(b)
sch.unroll(k1)
Y_init = sch.decompose_reduction(Y, k0)
sch.vectorize(sch.get_loops(Y_init)[-1])
sch.vectorize(sch.get_loops(C)[-1])

np.random.seed(1)
a_np = np.random.rand(16, 128, 128).astype("float32")
b_np = np.random.rand(16, 128, 128).astype("float32")
ref = np.stack([np.maximum(a_np[n] @ b_np[n], 0) for n in range(16)])
before_rt_lib = tvm.build(MyBmmRelu, target="llvm")
after_rt_lib = tvm.build(sch.mod, target="llvm")
a_tvm = tvm.nd.array(a_np)
b_tvm = tvm.nd.array(b_np)
c_tvm = tvm.nd.array(np.random.rand(16, 128, 128).astype("float32"))
after_rt_lib["bmm_relu"](a_tvm, b_tvm, c_tvm)
np.testing.assert_allclose(c_tvm.numpy(), ref, rtol=1e-4)
c_tvm = tvm.nd.array(np.random.rand(16, 128, 128).astype("float32"))
before_rt_lib["bmm_relu"](a_tvm, b_tvm, c_tvm)
np.testing.assert_allclose(c_tvm.numpy(), ref, rtol=1e-4)
before_timer = before_rt_lib.time_evaluator("bmm_relu", tvm.cpu())
t_before = before_timer(a_tvm, b_tvm, c_tvm).mean
f_timer = after_rt_lib.time_evaluator("bmm_relu", tvm.cpu())
t_after = f_timer(a_tvm, b_tvm, c_tvm).mean
print("bmm_relu ok")
print("bmm_relu speedup: %.2f" % (t_before / t_after))

M = 1024
K = 1024
N = 1024
dtype = "float32"
target = "llvm"
dev = tvm.device(target, 0)

@T.prim_func
def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"),
         C: T.Buffer((1024, 1024), "float32")):
    T.func_attr({"tir.noalias": True})
    for m, n, k in T.grid(1024, 1024, 1024):
        with T.block("C"):
            v_m, v_n, v_k = T.axis.remap("SSR", [m, n, k])
            with T.init():
                C[v_m, v_n] = T.float32(0.0)
            C[v_m, v_n] = C[v_m, v_n] + A[v_m, v_k] * B[v_k, v_n]

ir_module = IRModule({"main": main})

func = tvm.build(ir_module, target="llvm")  # The module for CPU backends.

a_np = np.random.rand(M, K).astype(dtype)
b_np = np.random.rand(K, N).astype(dtype)
# A full A @ B costs the script interpreter 10^9 steps: check every 64th
# row exactly, and every entry through a random projection C v = A (B v).
rows = a_np[::64] @ b_np
v = np.random.rand(N).astype(dtype)
proj = a_np @ (b_np @ v)

def check(c):
    out = c.numpy()
    np.testing.assert_allclose(out[::64], rows, rtol=1e-4)
    np.testing.assert_allclose(out @ v, proj, rtol=1e-4)
a = tvm.runtime.tensor(a_np, dev)
b = tvm.runtime.tensor(b_np, dev)
c = tvm.runtime.tensor(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)
check(c)

evaluator = func.time_evaluator(func.entry_name, dev, number=1)
baseline = evaluator(a, b, c).mean

sch = tvm.s_tir.Schedule(ir_module)
print(type(sch))
block_c = sch.get_sblock("C")
# Get loops surronding the block
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size])
xo, xi = sch.split(x, [None, block_size])

sch.reorder(yo, xo, k, yi, xi)

func = tvm.build(sch.mod, target="llvm")  # The module for CPU backends.

c = tvm.runtime.tensor(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)
check(c)

evaluator = func.time_evaluator(func.entry_name, dev, number=1)
blocked = evaluator(a, b, c).mean

sch = tvm.s_tir.Schedule(ir_module)
block_c = sch.get_sblock("C")
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size])
xo, xi = sch.split(x, [None, block_size])

sch.reorder(yo, xo, k, yi, xi)
sch.parallel(yo)

func = tvm.build(sch.mod, target="llvm")  # The module for CPU backends.

c = tvm.runtime.tensor(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)
check(c)

evaluator = func.time_evaluator(func.entry_name, dev, number=1)
parallel = evaluator(a, b, c).mean
print("matmul 1024 ok")
print("baseline %.3f s, blocked %.3f s (%.1fx), parallel %.3f s (%.1fx)" % (
    baseline, blocked, baseline / blocked, parallel, baseline / parallel))
print("In[46] (parallel) over In[41] (blocked): %.2fx" % (blocked / parallel))
