# compute_at of a reduction block: the reduce iterator gets a full loop
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((128,))
    for i, k in T.grid(128, 128):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, = sch.get_loops(c)
sch.compute_at(b, i)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((128,))
        for i in range(128):
            for ax0 in range(128):
                with T.block("B"):
                    vi, vk = T.axis.remap("SR", [i, ax0])
                    T.reads(A[vi, vk])
                    T.writes(B[vi])
                    with T.init():
                        B[vi] = T.float32(0.0)
                    B[vi] = B[vi] + A[vi, vk]
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)
