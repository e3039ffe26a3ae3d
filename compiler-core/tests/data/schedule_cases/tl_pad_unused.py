# transform_layout with pad_value but no padding: the value is recorded and not used
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
    B = T.alloc_buffer((16,), "int32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] - 3
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] + B[vi]
# --- schedule
b = sch.get_block("B")
sch.transform_layout(b, "B", lambda i: (i // 4, i % 4), pad_value=42)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        # with T.block("root"):
        B = T.alloc_buffer((4, 4), "int32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi // 4, vi % 4])
                B[vi // 4, vi % 4] = A[vi] - 3
        for i in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                T.reads(B[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = B[vi // 4, vi % 4] + B[vi // 4, vi % 4]
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (i // 4, i % 4,), pad_value=lambda indices_0, indices_1: (42,), assume_injective_transform=False)
