# A 16x16x16 matmul-accumulate intrinsic over global buffers (B not
# transposed), implemented by an extern call.
from tvm.script import tir as T


@T.prim_func
def mma16_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (16, 16), "float32", offset_factor=1)
    B = T.match_buffer(b, (16, 16), "float32", offset_factor=1)
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        for i, j, k in T.grid(16, 16, 16):
            with T.block("update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def mma16_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (16, 16), "float32", offset_factor=1)
    B = T.match_buffer(b, (16, 16), "float32", offset_factor=1)
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        T.evaluate(T.call_extern("mma16", C.data, A.data, B.data, dtype="int32"))
