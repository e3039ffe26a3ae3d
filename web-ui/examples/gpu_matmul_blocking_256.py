# MLC §6.1.5–6 GPU matmul blocking at 256×256×256 (the book uses 1024: a size the reference interpreter
# cannot check in a browser tab). Runs on WebGPU; Run compares it with the original.
# Source: seed 001 §6.1.5 "Local Blocking", lines 4371-4396: `blocking(sch, 8, 8, 8, 8, 4)` on
# MyModuleMatmul, with the function's parameters written out as assignments.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleMatmul:
    @T.prim_func
    def main(A: T.Buffer((256, 256), "float32"),
             B: T.Buffer((256, 256), "float32"),
             C: T.Buffer((256, 256), "float32")) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(256, 256, 256):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# --- schedule ---
tile_local_y = 8
tile_local_x = 8
tile_block_y = 8
tile_block_x = 8
tile_k = 4
block_C = sch.get_block("C")
C_local = sch.cache_write(block_C, 0, "local")
i, j, k = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(loop=i, factors=[None, tile_block_y, tile_local_y])
j0, j1, j2 = sch.split(loop=j, factors=[None, tile_block_x, tile_local_x])
k0, k1 = sch.split(loop=k, factors=[None, tile_k])
sch.unroll(k1)
sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
sch.reverse_compute_at(C_local, j1)
sch.bind(i0, "blockIdx.y")
sch.bind(j0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(j1, "threadIdx.x")
sch.decompose_reduction(block_C, k0)
