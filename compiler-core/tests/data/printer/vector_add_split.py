# Vector add after sch.split(i, [None, 4, 4]); a second function after
# sch.parallel(i_0) on the reordered nest (i_0, i_2, i_1).
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "main", "tirx.noalias": True})
        for i_0, i_1, i_2 in T.grid(8, 4, 4):
            with T.sblock("C"):
                vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
                T.reads(A[vi], B[vi])
                T.writes(C[vi])
                C[vi] = A[vi] + B[vi]

    @T.prim_func(s_tir=True)
    def add_parallel(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i_0 in T.parallel(8):
            for i_2, i_1 in T.grid(4, 4):
                with T.sblock("C"):
                    vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
                    T.reads(A[vi], B[vi])
                    T.writes(C[vi])
                    C[vi] = A[vi] + B[vi]
