# from tvm.script import tir as T

@T.prim_func
def tmm16_impl(A: T.Buffer((16, 16), "float32", strides=("sa", -1), scope="global.A_reg", offset_factor=16), B: T.Buffer((16, 16), "float32", strides=("sb", -1), scope="global.B_reg", offset_factor=16), C: T.Buffer((16, 16), "float32", strides=("sc", -1), scope="global.accumulator", offset_factor=16)):
    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        T.call_extern("int32", "tmm16", T.tvm_access_ptr(T.type_annotation("float32"), C.data, C.elem_offset, C.strides[0] * 16, 2), T.tvm_access_ptr(T.type_annotation("float32"), A.data, A.elem_offset, A.strides[0] * 16, 1), T.tvm_access_ptr(T.type_annotation("float32"), B.data, B.elem_offset, B.strides[0] * 16, 1), A.strides[0], B.strides[0], C.strides[0])