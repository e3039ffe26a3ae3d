# A block with a predicate, slice regions, annotations, an allocation and a
# match_buffer, plus the root allocation in shared scope.
from tvm.script import tirx as T

PRINT = "tiles"


@T.prim_func(s_tir=True)
def tiles(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    S = T.sblock_alloc_buffer((16, 16), "float16", scope="shared")
    for i_0, i_1 in T.grid(11, 12):
        with T.sblock("tile"):
            vi = T.axis.spatial(128, i_0 * 12 + i_1)
            T.where(i_0 * 12 + i_1 < 128)
            T.reads(A[vi, 0:128], B[vi * 4:vi * 4 + 4, vi], S[0:16, 0:16])
            T.writes(B[vi, vi:vi + 8])
            T.sblock_attr({"meta_schedule.auto_tensorize": "dot", "k": 1})
            D = T.sblock_alloc_buffer((4,), scope="local")
            E = T.match_buffer(A[vi, 0:16], (16,))
            with T.init():
                B[vi, 0] = T.float32(0)
            D[0] = E[0]
            B[vi, 0] = D[0]
