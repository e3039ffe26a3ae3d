# compute_inline into a reduction block
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, k in T.grid(128, 128):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi, vk]
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
        # with T.block("root"):
        for i, k in T.grid(128, 128):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + A[vi, vk] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.compute_inline(block=b0)
