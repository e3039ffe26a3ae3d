# book 6.1.6: shared-memory caches of A and B computed at k0 (relaxed over threadIdx.x, not blockIdx), then fused, split and bound for cooperative fetching
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        C_local = T.alloc_buffer((1024, 1024), scope="local")
        A_shared = T.alloc_buffer((1024, 1024), scope="shared")
        B_shared = T.alloc_buffer((1024, 1024), scope="shared")
        for ax0, ax1 in T.grid(1024, 1024):
            with T.block("B_shared"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(B[v0, v1])
                T.writes(B_shared[v0, v1])
                B_shared[v0, v1] = B[v0, v1]
        for ax0, ax1 in T.grid(1024, 1024):
            with T.block("A_shared"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_shared[v0, v1])
                A_shared[v0, v1] = A[v0, v1]
        for i_0 in T.thread_binding(16, thread="blockIdx.y"):
            for j_0 in T.thread_binding(16, thread="blockIdx.x"):
                for i_1_j_1_fused in T.thread_binding(64, thread="threadIdx.x"):
                    for k_0, k_1, i_2, j_2 in T.grid(128, 8, 8, 8):
                        with T.block("C"):
                            vi = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + i_2)
                            vj = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + j_2)
                            vk = T.axis.reduce(1024, k_0 * 8 + k_1)
                            T.reads(A_shared[vi, vk], B_shared[vk, vj])
                            T.writes(C_local[vi, vj])
                            with T.init():
                                C_local[vi, vj] = T.float32(0.0)
                            C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
                    for ax0, ax1 in T.grid(8, 8):
                        with T.block("C_local"):
                            v0 = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + ax0)
                            v1 = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + ax1)
                            T.reads(C_local[v0, v1])
                            T.writes(C[v0, v1])
                            C[v0, v1] = C_local[v0, v1]
# The book continues with fuse/split/vectorize/bind of the cache loops and decompose_reduction;
# left out here: TVM's fuse+split keep `(fused_0 * 256 + fused_1 * 4 + fused_2) // 8` unsimplified.
# --- schedule
block_C = sch.get_block("C")
A_shared = sch.get_block("A_shared")
B_shared = sch.get_block("B_shared")
i0, j0, tx, k0, k1, i2, j2 = sch.get_loops(block_C)
sch.compute_at(A_shared, k0)
sch.compute_at(B_shared, k0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        C_local = T.alloc_buffer((1024, 1024), scope="local")
        A_shared = T.alloc_buffer((1024, 1024), scope="shared")
        B_shared = T.alloc_buffer((1024, 1024), scope="shared")
        for i_0 in T.thread_binding(16, thread="blockIdx.y"):
            for j_0 in T.thread_binding(16, thread="blockIdx.x"):
                for i_1_j_1_fused in T.thread_binding(64, thread="threadIdx.x"):
                    for k_0 in range(128):
                        for ax0, ax1 in T.grid(64, 8):
                            with T.block("A_shared"):
                                v0 = T.axis.spatial(1024, i_0 * 64 + ax0)
                                v1 = T.axis.spatial(1024, k_0 * 8 + ax1)
                                T.reads(A[v0, v1])
                                T.writes(A_shared[v0, v1])
                                A_shared[v0, v1] = A[v0, v1]
                        for ax0, ax1 in T.grid(8, 64):
                            with T.block("B_shared"):
                                v0 = T.axis.spatial(1024, k_0 * 8 + ax0)
                                v1 = T.axis.spatial(1024, j_0 * 64 + ax1)
                                T.reads(B[v0, v1])
                                T.writes(B_shared[v0, v1])
                                B_shared[v0, v1] = B[v0, v1]
                        for k_1, i_2, j_2 in T.grid(8, 8, 8):
                            with T.block("C"):
                                vi = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + i_2)
                                vj = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + j_2)
                                vk = T.axis.reduce(1024, k_0 * 8 + k_1)
                                T.reads(A_shared[vi, vk], B_shared[vk, vj])
                                T.writes(C_local[vi, vj])
                                with T.init():
                                    C_local[vi, vj] = T.float32(0.0)
                                C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
                    for ax0, ax1 in T.grid(8, 8):
                        with T.block("C_local"):
                            v0 = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + ax0)
                            v1 = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + ax1)
                            T.reads(C_local[v0, v1])
                            T.writes(C[v0, v1])
                            C[v0, v1] = C_local[v0, v1]
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# b1 = sch.get_block(name="A_shared", func_name="main")
# b2 = sch.get_block(name="B_shared", func_name="main")
# l3, l4, l5, l6, l7, l8, l9 = sch.get_loops(block=b0)
# sch.compute_at(block=b1, loop=l6, preserve_unit_loops=False, index=-1)
# sch.compute_at(block=b2, loop=l6, preserve_unit_loops=False, index=-1)
