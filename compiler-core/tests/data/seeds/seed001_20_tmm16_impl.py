# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §6.2.3 "Tensorization", lines 4810-4835:
#   tmm16_impl, the implementation half of the tensor intrinsic (T.int32() stride variables,
#   match_buffer with strides, T.evaluate(T.call_extern(...)) with buffer access_ptr).
# Fixes: the extracted text has one unmatched `)` line after the closing `)` of `T.evaluate(` (a
#   syntax error); it was removed. Note: the seed spells the strides `[sa, -1]` (other copies of the
#   course use `[sa, 1]`); the seed's spelling is kept.
import tvm
from tvm.script import tir as T

@T.prim_func
def tmm16_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    sa = T.int32()
    sb = T.int32()
    sc = T.int32()
    A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, strides=[sa, -1], scope="global.A_reg")
    B = T.match_buffer(b, (16, 16), "float32", offset_factor=16, strides=[sb, -1], scope="global.B_reg")
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=16, strides=[sc, -1], scope="global.accumulator")

    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        T.evaluate(
            T.call_extern(
                "tmm16",
                C.access_ptr("w"),
                A.access_ptr("r"),
                B.access_ptr("r"),
                sa,
                sb,
                sc,
                dtype="int32",
            )
        )
