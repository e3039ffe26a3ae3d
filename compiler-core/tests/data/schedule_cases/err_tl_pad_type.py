# transform_layout: an int pad_value for a float buffer has the wrong type
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
sch.transform_layout(b, "B", lambda i: (i // 4, i % 4), pad_value=0)
# --- error: but the transformation fills padding with
# TVM 0.27: ScheduleError: Buffer B has elements of type T.float32, but the transformation fills padding with T.index_map(lambda indices_0, indices_1: (0,)), which is of type int32
