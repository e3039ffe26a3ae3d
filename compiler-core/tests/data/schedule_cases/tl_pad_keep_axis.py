# transform_layout with pad_value that keeps one axis: its loop keeps its name, the split axis is padded
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((6, 10), "float32"), C: T.Buffer((6, 10), "float32")):
    B = T.alloc_buffer((6, 10))
    for i, j in T.grid(6, 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(2)
    for i, j in T.grid(6, 10):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(3)
# --- schedule
b = sch.get_block("B")
sch.transform_layout(b, "B", lambda i, j: (i, j // 4, j % 4), pad_value=3.0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((6, 10), "float32"), C: T.Buffer((6, 10), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((6, 3, 4))
        for i, axis1, axis2 in T.grid(6, 3, 4):
            with T.block("B"):
                v_i, v_axis1, v_axis2 = T.axis.remap("SSS", [i, axis1, axis2])
                T.reads(A[v_i, v_axis1 * 4 + v_axis2])
                T.writes(B[v_i, v_axis1, v_axis2])
                B[v_i, v_axis1, v_axis2] = T.if_then_else(v_axis1 == 2 and 2 <= v_axis2, T.float32(3.0), A[v_i, v_axis1 * 4 + v_axis2] + T.float32(2.0))
        for i, j in T.grid(6, 10):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj // 4, vj % 4])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj // 4, vj % 4] * T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i, j: (i, j // 4, j % 4,), pad_value=lambda indices_0, indices_1, indices_2: (T.float32(3.0),), assume_injective_transform=False)
