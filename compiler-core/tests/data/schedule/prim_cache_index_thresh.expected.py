# hand-written: TVM 0.27 runs this schedule; this is Tessel's result, which differs from TVM's in
# hand-written: two places only (see schedule/src/cache_index.rs): TVM's block `C`
# hand-written: loads index_var_0/1 without declaring them in T.reads, and TVM's index buffers carry
# hand-written: strides=(1,). Everything else (stages, names, order, loads) is TVM's output.
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((72,), "float32"), W: T.Buffer((24,), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((72,))
        index_var_0 = T.sblock_alloc_buffer((8, 8), "int32")
        index_var_1 = T.sblock_alloc_buffer((8,), "int32")
        for i in range(72):
            with T.sblock("B"):
                vi = T.axis.spatial(72, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)
        for ax0, ax1 in T.grid(8, 8):
            with T.sblock("index_0"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(index_var_0[v0, v1])
                index_var_0[v0, v1] = v0 * 8 + v1
        for ax0 in range(8):
            with T.sblock("index_1"):
                v0 = T.axis.spatial(8, ax0)
                T.reads()
                T.writes(index_var_1[v0])
                index_var_1[v0] = v0 * 3 + 1
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi * 8 + vj:vi * 8 + vj + 2], W[vj * 3 + 1], index_var_0[vi, vj], index_var_1[vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[index_var_0[vi, vj]] * B[index_var_0[vi, vj]] + W[index_var_1[vj]] * W[index_var_1[vj]] + B[index_var_0[vi, vj] + 1]
