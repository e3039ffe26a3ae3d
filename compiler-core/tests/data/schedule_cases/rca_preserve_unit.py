# reverse_compute_at keeping unit loops
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(b)
sch.reverse_compute_at(c, j, preserve_unit_loops=True)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((128, 128))
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0, ax1 in T.grid(1, 1):
                with T.block("C"):
                    vi = T.axis.spatial(128, i + ax0)
                    vj = T.axis.spatial(128, j + ax1)
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, l3 = sch.get_loops(block=b0)
# sch.reverse_compute_at(block=b1, loop=l3, preserve_unit_loops=True, index=-1)
