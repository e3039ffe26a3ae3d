# reverse_compute_at with int64 loops over int32-shaped buffers, keeping unit loops: the consumer's unit iterator follows the producer's row, with predicates in int64
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((1, 3), "float32")):
    B = T.alloc_buffer((32, 32))
    for i_0, j_0, i_1, j_1 in T.grid(T.int64(4), T.int64(4), T.int64(8), T.int64(8)):
        with T.block("B"):
            vi = T.axis.spatial(T.int64(32), i_0 * T.int64(8) + i_1)
            vj = T.axis.spatial(T.int64(32), j_0 * T.int64(8) + j_1)
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for ax0, ax1 in T.grid(T.int64(1), T.int64(3)):
        with T.block("D"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            D[v0, v1] = B[v0, v1] * T.float32(2)
# --- schedule
d = sch.get_block("D")
loops = sch.get_loops(sch.get_block("B"))
sch.reverse_compute_at(d, loops[2], preserve_unit_loops=True)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((1, 3), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((32, 32))
        for i_0, j_0, i_1 in T.grid(T.int64(4), T.int64(4), T.int64(8)):
            for j_1 in range(T.int64(8)):
                with T.block("B"):
                    vi = T.axis.spatial(T.int64(32), i_0 * T.int64(8) + i_1)
                    vj = T.axis.spatial(T.int64(32), j_0 * T.int64(8) + j_1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)
            for ax0, ax1 in T.grid(T.int64(1), T.int64(8)):
                with T.block("D"):
                    v0 = T.axis.spatial(T.int64(1), i_0 * T.int64(8) + i_1 + ax0)
                    v1 = T.axis.spatial(T.int64(3), j_0 * T.int64(8) + ax1)
                    T.where(i_0 * T.int64(8) + i_1 < T.int64(1) and j_0 * T.int64(8) + ax1 < T.int64(3))
                    T.reads(B[v0, v1])
                    T.writes(D[v0, v1])
                    D[v0, v1] = B[v0, v1] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="D", func_name="main")
# b1 = sch.get_block(name="B", func_name="main")
# l2, l3, l4, l5 = sch.get_loops(block=b1)
# sch.reverse_compute_at(block=b0, loop=l4, preserve_unit_loops=True, index=-1)
