# rfactor of a reduction into a zero-dimensional buffer: the rfactor buffer keeps its int64 offset
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((), "float32")):
    for k in range(16):
        with T.block("B"):
            vk = T.axis.remap("R", [k])
            with T.init():
                B[()] = T.float32(0)
            B[()] = B[()] + A[vk]
# --- schedule
b = sch.get_block("B")
(k,) = sch.get_loops(b)
sch.rfactor(k, 0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((), "float32")):
        # with T.block("root"):
        B_rf = T.alloc_buffer((16,), elem_offset=T.int64(0))
        for k in range(16):
            with T.block("B_rf"):
                vk = T.axis.spatial(16, k)
                T.reads(A[vk])
                T.writes(B_rf[vk])
                B_rf[vk] = A[vk]
        for k in range(16):
            with T.block("B"):
                vk = T.axis.reduce(16, k)
                T.reads(B_rf[vk])
                T.writes(B[()])
                with T.init():
                    B[()] = T.float32(0.0)
                B[()] = B[()] + B_rf[vk]
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, = sch.get_loops(block=b0)
# b2 = sch.rfactor(loop=l1, factor_axis=0)
