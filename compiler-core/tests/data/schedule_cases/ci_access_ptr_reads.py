# the consumer also passes a lookup table by pointer (read only): after inlining, its reads list the
# table first, whole, as the pointer comes first in its body
from tvm.script import tir as T
@T.prim_func
def main(T_: T.Buffer((256,), "int8"), A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    B = T.alloc_buffer((32,))
    for i in range(32):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            B[vi] = A[vi] + T.float32(1)
    for i in range(32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            T.reads(T_[0:256], B[vi])
            T.writes(C[vi])
            T.evaluate(T_.access_ptr("r"))
            C[vi] = B[vi] * T.float32(2)
# --- schedule
sch.compute_inline(sch.get_block("B"))
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(T_: T.Buffer((256,), "int8"), A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
        # with T.block("root"):
        for i in range(32):
            with T.block("C"):
                vi = T.axis.spatial(32, i)
                T.reads(T_[0:256], A[vi])
                T.writes(C[vi])
                T.tvm_access_ptr(T.type_annotation("int8"), T_.data, 0, 256, 1)
                C[vi] = (A[vi] + T.float32(1.0)) * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.compute_inline(block=b0)
