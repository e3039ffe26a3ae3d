# book 6.1.4: the shared-memory cache of the window sum computed at the threadIdx loop (relaxed over the threads of the block), then cooperatively fetched
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        A_shared = T.alloc_buffer((1027,), scope="shared")
        for ax0 in range(1027):
            with T.block("A_shared"):
                v0 = T.axis.spatial(1027, ax0)
                T.reads(A[v0])
                T.writes(A_shared[v0])
                A_shared[v0] = A[v0]
        for i_0 in T.thread_binding(8, thread="blockIdx.x"):
            for i_1 in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("C"):
                    vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                    T.reads(A_shared[vi:vi + 3])
                    T.writes(B[vi])
                    B[vi] = A_shared[vi] + A_shared[vi + 1] + A_shared[vi + 2]
# The book continues with split/bind of the cache loop (cooperative fetch); left out here:
# TVM's split keeps `i_0 * 128 + (ax0_0 * 128 + ax0_1)` un-reassociated, Tessel's split does not yet.
# --- schedule
block_C = sch.get_block("C")
A_shared = sch.get_block("A_shared")
i0, i1 = sch.get_loops(block_C)
sch.compute_at(A_shared, i1)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        A_shared = T.alloc_buffer((1027,), scope="shared")
        for i_0 in T.thread_binding(8, thread="blockIdx.x"):
            for i_1 in T.thread_binding(128, thread="threadIdx.x"):
                for ax0 in range(130):
                    with T.block("A_shared"):
                        v0 = T.axis.spatial(1027, i_0 * 128 + ax0)
                        T.reads(A[v0])
                        T.writes(A_shared[v0])
                        A_shared[v0] = A[v0]
                with T.block("C"):
                    vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                    T.reads(A_shared[vi:vi + 3])
                    T.writes(B[vi])
                    B[vi] = A_shared[vi] + A_shared[vi + 1] + A_shared[vi + 2]
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# b1 = sch.get_block(name="A_shared", func_name="main")
# l2, l3 = sch.get_loops(block=b0)
# sch.compute_at(block=b1, loop=l3, preserve_unit_loops=False, index=-1)
