# transform_layout with a pad_value that depends on the new indices
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((14,), "int32"), C: T.Buffer((14,), "int32")):
    B = T.alloc_buffer((14,), "int32")
    for i in range(14):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + 7
    for i in range(14):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] * 2
# --- schedule
b = sch.get_block("B")
sch.transform_layout(b, "B", lambda i: (i // 4, i % 4), pad_value=lambda i, j: i * 4 + j)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((14,), "int32"), C: T.Buffer((14,), "int32")):
        # with T.block("root"):
        B = T.alloc_buffer((4, 4), "int32")
        for axis0, axis1 in T.grid(4, 4):
            with T.block("B"):
                v_axis0, v_axis1 = T.axis.remap("SS", [axis0, axis1])
                T.reads(A[v_axis0 * 4 + v_axis1])
                T.writes(B[v_axis0, v_axis1])
                B[v_axis0, v_axis1] = T.if_then_else(v_axis0 == 3 and 2 <= v_axis1, v_axis0 * 4 + v_axis1, A[v_axis0 * 4 + v_axis1] + 7)
        for i in range(14):
            with T.block("C"):
                vi = T.axis.spatial(14, i)
                T.reads(B[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = B[vi // 4, vi % 4] * 2
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (i // 4, i % 4,), pad_value=lambda i, j: (i * 4 + j,), assume_injective_transform=False)
