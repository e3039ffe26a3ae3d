# from tvm.script import tir as T

@T.prim_func
def tmm16_impl(a: T.handle, b: T.handle, c: T.handle):
    sa = T.int32()
    A = T.match_buffer(a, (16, 16), strides=(sa, -1), scope="global.A_reg", offset_factor=16)
    sb = T.int32()
    B = T.match_buffer(b, (16, 16), strides=(sb, -1), scope="global.B_reg", offset_factor=16)
    sc = T.int32()
    C = T.match_buffer(c, (16, 16), strides=(sc, -1), scope="global.accumulator", offset_factor=16)
    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        T.call_extern("int32", "tmm16", T.tvm_access_ptr(T.type_annotation("float32"), C.data, C.elem_offset, sc * 16, 2), T.tvm_access_ptr(T.type_annotation("float32"), A.data, A.elem_offset, sa * 16, 1), T.tvm_access_ptr(T.type_annotation("float32"), B.data, B.elem_offset, sb * 16, 1), sa, sb, sc)