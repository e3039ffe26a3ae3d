# TVM 0.27's newer schedule methods called from a script as the course calls the others:
# `reindex`, `reindex_cache_read`, `reindex_cache_write`, `reorder_block_iter_var`,
# `transform_block_layout`, `unsafe_set_dtype` and `enter_postproc`, then the built function
# checked against NumPy.
# %%
import numpy as np
import tvm
from tvm.script import tir as T

# %%
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((16, 32), "float32"),
             B: T.Buffer((32, 8), "float32"),
             D: T.Buffer((16, 8), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        C = T.alloc_buffer((16, 8), dtype="float32")
        for i, j, k in T.grid(16, 8, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(16, 8):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))

# %%
sch = tvm.tir.Schedule(MyModule)
block_C = sch.get_block("C")
B_reindex = sch.reindex(block_C, ("read", 1))
A_shared = sch.reindex_cache_read(block_C, 0, "shared", lambda i, j, k: (k, i))
sch.reorder_block_iter_var(block_C, [2, 0, 1])
sch.unsafe_set_dtype(block_C, 0, "float64")
block_D = sch.get_block("D")
sch.transform_block_layout(block_D, lambda i, j: (j, i))
sch.enter_postproc()
sch.mod.show()
print(sch.trace)

# %%
a_np = np.random.rand(16, 32).astype("float32")
b_np = np.random.rand(32, 8).astype("float32")
d_nd = tvm.nd.empty((16, 8), "float32")
rt_mod = tvm.build(sch.mod, target="llvm")
rt_mod["main"](tvm.nd.array(a_np), tvm.nd.array(b_np), d_nd)
np.testing.assert_allclose(d_nd.numpy(), np.maximum(a_np @ b_np, 0), rtol=1e-5)
print("matches numpy")
