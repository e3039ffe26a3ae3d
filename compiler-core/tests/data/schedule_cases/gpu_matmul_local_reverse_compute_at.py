# book 6.1.5: the local write cache of the matmul moved under j1, then threads bound and the reduction decomposed
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        C_local = T.alloc_buffer((1024, 1024), scope="local")
        for i_0, j_0, i_1, j_1, k_0 in T.grid(16, 16, 8, 8, 256):
            for k_1 in T.unroll(4):
                for i_2, j_2 in T.grid(8, 8):
                    with T.block("C"):
                        vi = T.axis.spatial(1024, i_0 * 64 + i_1 * 8 + i_2)
                        vj = T.axis.spatial(1024, j_0 * 64 + j_1 * 8 + j_2)
                        vk = T.axis.reduce(1024, k_0 * 4 + k_1)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C_local[vi, vj])
                        with T.init():
                            C_local[vi, vj] = T.float32(0.0)
                        C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(1024, 1024):
            with T.block("C_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(C_local[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_local[v0, v1]
# The book continues with decompose_reduction(block_C, k0); left out here: TVM's C_update
# also reads C_local, Tessel's decompose_reduction does not re-infer the reads yet.
# --- schedule
block_C = sch.get_block("C")
C_local = sch.get_block("C_local")
i0, j0, i1, j1, k0, k1, i2, j2 = sch.get_loops(block_C)
sch.reverse_compute_at(C_local, j1)
sch.bind(i0, "blockIdx.y")
sch.bind(j0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(j1, "threadIdx.x")
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
        for i_0 in T.thread_binding(16, thread="blockIdx.y"):
            for j_0 in T.thread_binding(16, thread="blockIdx.x"):
                for i_1 in T.thread_binding(8, thread="threadIdx.y"):
                    for j_1 in T.thread_binding(8, thread="threadIdx.x"):
                        for k_0 in range(256):
                            for k_1 in T.unroll(4):
                                for i_2, j_2 in T.grid(8, 8):
                                    with T.block("C"):
                                        vi = T.axis.spatial(1024, i_0 * 64 + i_1 * 8 + i_2)
                                        vj = T.axis.spatial(1024, j_0 * 64 + j_1 * 8 + j_2)
                                        vk = T.axis.reduce(1024, k_0 * 4 + k_1)
                                        T.reads(A[vi, vk], B[vk, vj])
                                        T.writes(C_local[vi, vj])
                                        with T.init():
                                            C_local[vi, vj] = T.float32(0.0)
                                        C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
                        for ax0, ax1 in T.grid(8, 8):
                            with T.block("C_local"):
                                v0 = T.axis.spatial(1024, i_0 * 64 + i_1 * 8 + ax0)
                                v1 = T.axis.spatial(1024, j_0 * 64 + j_1 * 8 + ax1)
                                T.reads(C_local[v0, v1])
                                T.writes(C[v0, v1])
                                C[v0, v1] = C_local[v0, v1]
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# b1 = sch.get_block(name="C_local", func_name="main")
# l2, l3, l4, l5, l6, l7, l8, l9 = sch.get_loops(block=b0)
# sch.reverse_compute_at(block=b1, loop=l5, preserve_unit_loops=False, index=-1)
# sch.bind(loop=l2, thread_axis="blockIdx.y")
# sch.bind(loop=l3, thread_axis="blockIdx.x")
# sch.bind(loop=l4, thread_axis="threadIdx.y")
# sch.bind(loop=l5, thread_axis="threadIdx.x")
