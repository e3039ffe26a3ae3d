# transform_layout with pad_value: the producer's loop runs over the padded shape and writes the pad with T.if_then_else
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32")):
    B = T.alloc_buffer((10,))
    for i in range(10):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(3)
    for i in range(10):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] - T.float32(1)
# --- schedule
b = sch.get_block("B")
sch.transform_layout(b, "B", lambda i: (i // 4, i % 4), pad_value=0.5)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((3, 4))
        for axis0, axis1 in T.grid(3, 4):
            with T.block("B"):
                v_axis0, v_axis1 = T.axis.remap("SS", [axis0, axis1])
                T.reads(A[v_axis0 * 4 + v_axis1])
                T.writes(B[v_axis0, v_axis1])
                B[v_axis0, v_axis1] = T.if_then_else(v_axis0 == 2 and 2 <= v_axis1, T.float32(0.5), A[v_axis0 * 4 + v_axis1] * T.float32(3.0))
        for i in range(10):
            with T.block("C"):
                vi = T.axis.spatial(10, i)
                T.reads(B[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = B[vi // 4, vi % 4] - T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (i // 4, i % 4,), pad_value=lambda indices_0, indices_1: (T.float32(0.5),), assume_injective_transform=False)
