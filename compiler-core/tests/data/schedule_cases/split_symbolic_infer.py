# a loop of symbolic extent split with the inner factor inferred: (n + 5) // 6 loops, and a predicate
from tvm.script import tir as T
@T.prim_func
def main(n: T.int32, a: T.handle, b: T.handle):
    A = T.match_buffer(a, (4, n))
    B = T.match_buffer(b, (4, n))
    for i, j in T.grid(4, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
# --- schedule
i, j = sch.get_loops(sch.get_block("B"))
sch.split(j, [6, None])
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(n: T.int32, A: T.Buffer((4, n), "float32"), B: T.Buffer((4, n), "float32")):
        # with T.block("root"):
        for i, j_0, j_1 in T.grid(4, 6, (n + 5) // 6):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                vj = T.axis.spatial(n, j_0 * ((n + 5) // 6) + j_1)
                T.where(j_0 * ((n + 5) // 6) + j_1 < n)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3, l4 = sch.split(loop=l2, factors=[6, None], preserve_unit_iters=True, disable_predication=False)
