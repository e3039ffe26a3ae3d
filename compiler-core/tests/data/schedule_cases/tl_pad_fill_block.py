# transform_layout with pad_value where the producer also writes another buffer: a separate block fills the padding
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32"), D: T.Buffer((10,), "float32")):
    B = T.alloc_buffer((10,))
    for i in range(10):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
            D[vi] = A[vi] * T.float32(2)
    for i in range(10):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] * B[vi]
# --- schedule
b = sch.get_block("B")
sch.transform_layout(b, "B", lambda i: (i // 4, i % 4), pad_value=-1.0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32"), D: T.Buffer((10,), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((3, 4))
        for i in range(10):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                T.reads(A[vi])
                T.writes(B[vi // 4, vi % 4], D[vi])
                B[vi // 4, vi % 4] = A[vi] + T.float32(1.0)
                D[vi] = A[vi] * T.float32(2.0)
        for axis0, axis1 in T.grid(3, 4):
            with T.block("buffer_B_padding"):
                v_axis0, v_axis1 = T.axis.remap("SS", [axis0, axis1])
                T.where(axis0 == 2 and 2 <= axis1)
                T.reads()
                T.writes(B[v_axis0, v_axis1])
                B[v_axis0, v_axis1] = T.float32(-1.0)
        for i in range(10):
            with T.block("C"):
                vi = T.axis.spatial(10, i)
                T.reads(B[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = B[vi // 4, vi % 4] * B[vi // 4, vi % 4]
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (i // 4, i % 4,), pad_value=lambda indices_0, indices_1: (T.float32(-1.0),), assume_injective_transform=False)
