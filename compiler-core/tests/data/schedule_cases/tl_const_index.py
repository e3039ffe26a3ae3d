# transform_layout whose index map has a constant result (`tvm.tirx.const(0, i.ty.dtype)`) and pads an int64-indexed buffer: the constant takes the index type
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((T.int64(10),), "int32"), Y: T.Buffer((T.int64(10),), "int32")):
    A = T.alloc_buffer((T.int64(10),), "int32")
    for i in range(T.int64(10)):
        with T.block("A"):
            vi = T.axis.remap("S", [i])
            A[vi] = X[vi] + 7
    for i in range(T.int64(10)):
        with T.block("Y"):
            vi = T.axis.remap("S", [i])
            Y[vi] = A[vi] * 2
# --- schedule
sch.transform_layout("A", ("write", 0), lambda i: [tvm.tirx.const(0, i.ty.dtype), i // 4, i % 4], pad_value=0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((T.int64(10),), "int32"), Y: T.Buffer((T.int64(10),), "int32")):
        # with T.block("root"):
        A = T.alloc_buffer((T.int64(1), T.int64(3), T.int64(4)), "int32")
        for axis0, axis1, axis2 in T.grid(T.int64(1), T.int64(3), T.int64(4)):
            with T.block("A"):
                v_axis0, v_axis1, v_axis2 = T.axis.remap("SSS", [axis0, axis1, axis2])
                T.reads(X[v_axis1 * T.int64(4) + v_axis2])
                T.writes(A[v_axis0, v_axis1, v_axis2])
                A[v_axis0, v_axis1, v_axis2] = T.if_then_else(v_axis1 == T.int64(2) and T.int64(2) <= v_axis2, 0, X[v_axis1 * T.int64(4) + v_axis2] + 7)
        for i in range(T.int64(10)):
            with T.block("Y"):
                vi = T.axis.spatial(T.int64(10), i)
                T.reads(A[T.int64(0), vi // T.int64(4), vi % T.int64(4)])
                T.writes(Y[vi])
                Y[vi] = A[T.int64(0), vi // T.int64(4), vi % T.int64(4)] * 2
# --- trace
# b0 = sch.get_block(name="A", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (T.int64(0), i // T.int64(4), i % T.int64(4),), pad_value=lambda indices_0, indices_1, indices_2: (0,), assume_injective_transform=False)
