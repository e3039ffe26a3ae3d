# index=0: insert before the other statements of the loop body
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    C = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(2)
    for i, j in T.grid(64, 64):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] + B[vi, vj]
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
d = sch.get_block("D")
i, j = sch.get_loops(d)
sch.compute_at(c, i)
sch.compute_at(b, i, index=0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((64, 64))
        C = T.alloc_buffer((64, 64))
        for i in range(64):
            for ax0 in range(64):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, ax0])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)
            for ax0 in range(64):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, ax0])
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] * T.float32(2.0)
            for j in range(64):
                with T.block("D"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(C[vi, vj], B[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = C[vi, vj] + B[vi, vj]
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# b2 = sch.get_block(name="D", func_name="main")
# l3, l4 = sch.get_loops(block=b2)
# sch.compute_at(block=b1, loop=l3, preserve_unit_loops=False, index=-1)
# sch.compute_at(block=b0, loop=l3, preserve_unit_loops=False, index=0)
