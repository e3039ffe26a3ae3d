# TVM 0.27's schedule methods `fuse_reduction_epilogue`, `loop_partition`, `read_at`, `write_at`,
# `rolling_buffer` and `cache_index` called from a script through `tvm.tir.Schedule` and
# `tvm.s_tir.Schedule`, each result built and checked against NumPy.
# %%
import numpy as np
import tvm
from tvm.script import tir as T

# %%
@tvm.script.ir_module
class MatmulBias:
    @T.prim_func
    def main(A: T.Buffer((6, 8), "float32"),
             B: T.Buffer((8, 4), "float32"),
             C: T.Buffer((4,), "float32"),
             D: T.Buffer((6, 4), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        temp = T.alloc_buffer((6, 4), dtype="float32")
        for i, j, k in T.grid(6, 4, 8):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    temp[vi, vj] = T.float32(0)
                temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(6, 4):
            with T.block("bias"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = temp[vi, vj] + C[vj]

# %%
sch = tvm.tir.Schedule(MatmulBias)
block_mm = sch.get_block("matmul")
block_bias = sch.get_block("bias")
sch.fuse_reduction_epilogue(block_mm, block_bias)
i, j, k = sch.get_loops(block_mm)
parts = sch.loop_partition(i, [None, 2])
print(len(parts))
print(sch.mod.script())
print(sch.trace)

# %%
a_np = np.random.rand(6, 8).astype("float32")
b_np = np.random.rand(8, 4).astype("float32")
c_np = np.random.rand(4).astype("float32")
d_nd = tvm.nd.empty((6, 4), "float32")
rt_mod = tvm.build(sch.mod, target="llvm")
rt_mod["main"](tvm.nd.array(a_np), tvm.nd.array(b_np), tvm.nd.array(c_np), d_nd)
np.testing.assert_allclose(d_nd.numpy(), a_np @ b_np + c_np, rtol=1e-5)
print("matches numpy")

# %%
@tvm.script.ir_module
class Windows:
    @T.prim_func
    def main(A: T.Buffer((12,), "float32"), C: T.Buffer((9,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        B = T.alloc_buffer((10,), dtype="float32")
        for i in range(10):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
        for i in range(9):
            with T.block("C"):
                vi = T.axis.spatial(9, i)
                C[vi] = B[vi] + B[vi + 1]

# %%
sch = tvm.s_tir.Schedule(Windows)
block_b = sch.get_sblock("B")
block_c = sch.get_sblock("C")
(i,) = sch.get_loops(block_c)
io, ii = sch.split(i, factors=[3, 3])
sch.compute_at(block_b, io)
a_shared = sch.read_at(io, block_b, 0, "shared")
sch.rolling_buffer(block_b, 0)
print(sch.mod.script())
print(sch.trace)

# %%
a_np = np.random.rand(12).astype("float32")
c_nd = tvm.nd.empty((9,), "float32")
rt_mod = tvm.build(sch.mod, target="llvm")
rt_mod["main"](tvm.nd.array(a_np), c_nd)
b_np = a_np[:10] + a_np[1:11] + a_np[2:12]
np.testing.assert_allclose(c_nd.numpy(), b_np[:9] + b_np[1:10], rtol=1e-5)
print("matches numpy")

# %%
@tvm.script.ir_module
class Gather:
    @T.prim_func
    def main(A: T.Buffer((72,), "float32"),
             W: T.Buffer((48,), "float32"),
             B: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi * 8 + vj * 2 + 1] + W[vi * 5 + vj]

# %%
sch = tvm.s_tir.Schedule(Gather)
stages = sch.cache_index(sch.get_sblock("B"), "global")
print(len(stages))
print(sch.trace)
a_np = np.random.rand(72).astype("float32")
w_np = np.random.rand(48).astype("float32")
b_nd = tvm.nd.empty((8, 8), "float32")
rt_mod = tvm.build(sch.mod, target="llvm")
rt_mod["main"](tvm.nd.array(a_np), tvm.nd.array(w_np), b_nd)
expected = np.zeros((8, 8), dtype="float32")
for i in range(8):
    for j in range(8):
        expected[i, j] = a_np[i * 8 + j * 2 + 1] + w_np[i * 5 + j]
np.testing.assert_allclose(b_nd.numpy(), expected, rtol=1e-5)
print("matches numpy")
