# Symbolic int64 shapes through T.handle parameters (the course's linear0 and
# relu0). TVM 0.27 prints these with module-level `TypeVar`s that it cannot
# parse back; Tessel prints `symbolic.ours.txt`, checked by gen_tvm.py to
# parse into a structurally equal module.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def linear0(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
        m = T.int64()
        n = T.int64()
        X = T.match_buffer(x, (T.int64(1), m))
        W = T.match_buffer(w, (n, m))
        B = T.match_buffer(b, (n,))
        Z = T.match_buffer(z, (T.int64(1), n))
        Y = T.sblock_alloc_buffer((T.int64(1), n))
        for i, j, k in T.grid(T.int64(1), n, m):
            with T.sblock("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(T.int64(1), n):
            with T.sblock("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func(s_tir=True)
    def relu0(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (T.int64(1), n))
        Y = T.match_buffer(y, (T.int64(1), n))
        for i, j in T.grid(T.int64(1), n):
            with T.sblock("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))
