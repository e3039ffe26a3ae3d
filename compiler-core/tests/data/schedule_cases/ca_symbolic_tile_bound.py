# compute_at under a split of a symbolic extent n * 16: the copy's bound holds by the loops' symbolic ranges, so no predicate
from tvm.script import tir as T
@T.prim_func
def main(n: T.int32, a: T.handle, b: T.handle):
    A = T.match_buffer(a, (4, n * 16))
    B = T.match_buffer(b, (4, n * 16))
    C = T.alloc_buffer((4, n * 16))
    for i, j in T.grid(4, n * 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(4, n * 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = C[vi, vj] * T.float32(3)
# --- schedule
c = sch.get_block("C")
b = sch.get_block("B")
i, j = sch.get_loops(b)
j_0, j_1 = sch.split(j, [None, 16])
sch.compute_at(c, j_0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(n: T.int32, A: T.Buffer((4, n * 16), "float32"), B: T.Buffer((4, n * 16), "float32")):
        # with T.block("root"):
        C = T.alloc_buffer((4, n * 16))
        for i, j_0 in T.grid(4, n):
            for ax0 in range(16):
                with T.block("C"):
                    vi = T.axis.spatial(4, i)
                    vj = T.axis.spatial(n * 16, j_0 * 16 + ax0)
                    T.reads(A[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A[vi, vj] + T.float32(1.0)
            for j_1 in range(16):
                with T.block("B"):
                    vi = T.axis.spatial(4, i)
                    vj = T.axis.spatial(n * 16, j_0 * 16 + j_1)
                    T.reads(C[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = C[vi, vj] * T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# b1 = sch.get_block(name="B", func_name="main")
# l2, l3 = sch.get_loops(block=b1)
# l4, l5 = sch.split(loop=l3, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
# sch.compute_at(block=b0, loop=l4, preserve_unit_loops=False, index=-1)
