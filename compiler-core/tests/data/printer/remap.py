# When block iterators print as T.axis.remap: runs of spatial/reduce iterators
# bound to an enclosing loop variable with the same domain.
from tvm.script import tirx as T

PRINT = "remap"


@T.prim_func(s_tir=True)
def remap(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.sblock("a"):
            vi = T.axis.spatial(128, i)
            vj = T.axis.spatial(128, j)
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(128, 128):
        with T.sblock("b_swapped"):
            vj = T.axis.spatial(128, j)
            vi = T.axis.spatial(128, i)
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(128, 64):
        with T.sblock("c_mixed"):
            vi = T.axis.spatial(128, i)
            vj = T.axis.spatial(128, j * 2)
            vk = T.axis.reduce(64, j)
            B[vi, vj] = A[vi, vk]
    for i, j in T.grid(128, 128):
        with T.sblock("d_mismatch"):
            vi = T.axis.spatial(256, i)
            vj = T.axis.spatial(128, j)
            B[vi, vj] = A[vi, vj]
    for i in range(128):
        with T.sblock("e_dup"):
            vi = T.axis.spatial(128, i)
            vj = T.axis.spatial(128, i)
            B[vi, vj] = A[vi, vj]
    for i in range(2, 10):
        with T.sblock("f_min"):
            vi = T.axis.spatial((2, 10), i)
            B[vi, 0] = A[vi, 0]
    for i in range(8):
        with T.sblock("g_opaque"):
            vi = T.axis.opaque(8, i)
            vj = T.axis.scan(8, i)
            B[vi, vj] = A[vi, 0]
    for i in range(8):
        with T.sblock("h_first_nonremap"):
            vk = T.axis.spatial(16, i * 2)
            vi = T.axis.spatial(8, i)
            B[vi, vk] = A[vi, 0]
    for i in range(8):
        with T.sblock("h_noiter"):
            B[i, 0] = A[i, 0]
    with T.sblock("i_const"):
        vi = T.axis.spatial(8, 3)
        B[vi, 0] = A[vi, 0]
