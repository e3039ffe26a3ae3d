# transform_layout with pad_value padding two axes: the padding condition is the or of both axes'
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((6, 10), "float32"), C: T.Buffer((6, 10), "float32")):
    B = T.alloc_buffer((6, 10))
    for i, j in T.grid(6, 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(6, 10):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
sch.transform_layout(b, "B", lambda i, j: (i // 4, j // 4, i % 4, j % 4), pad_value=-1.0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((6, 10), "float32"), C: T.Buffer((6, 10), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((2, 3, 4, 4))
        for axis0, axis1, axis2, axis3 in T.grid(2, 3, 4, 4):
            with T.block("B"):
                v_axis0, v_axis1, v_axis2, v_axis3 = T.axis.remap("SSSS", [axis0, axis1, axis2, axis3])
                T.reads(A[v_axis0 * 4 + v_axis2, v_axis1 * 4 + v_axis3])
                T.writes(B[v_axis0, v_axis1, v_axis2, v_axis3])
                B[v_axis0, v_axis1, v_axis2, v_axis3] = T.if_then_else(v_axis0 == 1 and 2 <= v_axis2 or v_axis1 == 2 and 2 <= v_axis3, T.float32(-1.0), A[v_axis0 * 4 + v_axis2, v_axis1 * 4 + v_axis3] * T.float32(2.0))
        for i, j in T.grid(6, 10):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi // 4, vj // 4, vi % 4, vj % 4])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi // 4, vj // 4, vi % 4, vj % 4] + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i, j: (i // 4, j // 4, i % 4, j % 4,), pad_value=lambda indices_0, indices_1, indices_2, indices_3: (T.float32(-1.0),), assume_injective_transform=False)
