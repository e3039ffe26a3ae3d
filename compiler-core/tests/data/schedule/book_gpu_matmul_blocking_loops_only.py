# Derived from seed 001 §6.1.5 `blocking(sch, 8, 8, 8, 8, 4)` on MyModuleMatmul: only its loop
# part (the three-level splits, `unroll(k1)`, `reorder(i0, j0, i1, j1, k0, k1, i2, j2)`, the
# thread bindings and `decompose_reduction`), without the local cache.
# numerics: skip (1024^3 multiply-adds)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleMatmul:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"),
             B: T.Buffer((1024, 1024), "float32"),
             C: T.Buffer((1024, 1024), "float32")) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(1024, 1024, 1024):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
block_C = sch.get_block("C")
i, j, k = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(loop=i, factors=[None, 8, 8])
j0, j1, j2 = sch.split(loop=j, factors=[None, 8, 8])
k0, k1 = sch.split(loop=k, factors=[None, 4])
sch.unroll(k1)
sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
sch.bind(i0, "blockIdx.y")
sch.bind(j0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(j1, "threadIdx.x")
sch.decompose_reduction(block_C, k0)
