# the consumer's domain has a symbolic extent: its load indexes B by its own iterators, so the
# producer's iterators take their place directly
from tvm.script import tir as T
@T.prim_func
def main(n: T.int32, a: T.handle, c: T.handle):
    A = T.match_buffer(a, (n, 16))
    C = T.match_buffer(c, (n, 16), "float16")
    B = T.alloc_buffer((n, 16))
    for i, j in T.grid(n, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(n, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.Cast("float16", B[vi, vj])
# --- schedule
sch.reverse_compute_inline(sch.get_block("C"))
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(n: T.int32, A: T.Buffer((n, 16), "float32"), C: T.Buffer((n, 16), "float16")):
        # with T.block("root"):
        for i, j in T.grid(n, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.Cast("float16", A[vi, vj] * T.float32(2.0))
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# sch.reverse_compute_inline(block=b0)
