# hand-written: TVM 0.27 cannot run this schedule: `sch.tensorize` segfaults (see
# hand-written: book_blockize_5_tensorize.expected.py). Derived from TVM's own output for the steps
# hand-written: before tensorize by what TVM's Tensorize does to a block: the body of `C_o_update` is
# hand-written: replaced by the body of mm4_impl's root block, and each impl parameter buffer becomes a
# hand-written: `T.match_buffer` of the region the block accesses (impl parameter order: A, B, C). The
# hand-written: text below is TVM's own printing of that IR (TVM parses it and prints it back
# hand-written: unchanged), and TVM compiles it to a correct 16x16x16 matmul.
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0, j_0 in T.grid(4, 4):
            with T.sblock("C_o_init"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads()
                T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                for i_1, j_1 in T.grid(4, 4):
                    with T.sblock("C_init"):
                        vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                        T.reads()
                        T.writes(C[vi_o * 4 + vi_i_init, vj_o * 4 + vj_i_init])
                        C[vi_o * 4 + vi_i_init, vj_o * 4 + vj_i_init] = T.float32(0.0)
            for k_0 in range(4):
                with T.sblock("C_o_update"):
                    vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
                    T.reads(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], B[vk_o * 4:vk_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                    T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                    A_1 = T.match_buffer(A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], (4, 4), offset_factor=1)
                    B_1 = T.match_buffer(B[vk_o * 4:vk_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], (4, 4), offset_factor=1)
                    C_1 = T.match_buffer(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], (4, 4), offset_factor=1)
                    for k, i, j in T.grid(4, 4, 4):
                        with T.sblock("mm4"):
                            vk, vi, vj = T.axis.remap("RSS", [k, i, j])
                            T.reads(C_1[vi, vj], A_1[vi, vk], B_1[vk, vj])
                            T.writes(C_1[vi, vj])
                            C_1[vi, vj] = C_1[vi, vj] + A_1[vi, vk] * B_1[vk, vj]
