# hand-written: TVM 0.27 cannot run this schedule: `sch.tensorize` segfaults (see
# hand-written: book_blockize_5_tensorize.expected.py). Derived from TVM's own output for
# hand-written: `split` + `blockize(i1)` (what Tensorize does first to a loop) by what TVM's Tensorize
# hand-written: does next: the body of block `C_o` is replaced by the body of vadd4_impl's root block,
# hand-written: and each impl parameter buffer becomes a `T.match_buffer` of the region the block
# hand-written: accesses (impl parameter order: A, B, C). The text below is TVM's own printing of that
# hand-written: IR (TVM parses it and prints it back unchanged; schedule_case_goldens.py checks this).
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0 in range(4):
            with T.sblock("C_o"):
                vi_o = T.axis.spatial(4, i_0)
                T.reads(A[vi_o * 4:vi_o * 4 + 4], B[vi_o * 4:vi_o * 4 + 4])
                T.writes(C[vi_o * 4:vi_o * 4 + 4])
                A_1 = T.match_buffer(A[vi_o * 4:vi_o * 4 + 4], (4,), offset_factor=1)
                B_1 = T.match_buffer(B[vi_o * 4:vi_o * 4 + 4], (4,), offset_factor=1)
                C_1 = T.match_buffer(C[vi_o * 4:vi_o * 4 + 4], (4,), offset_factor=1)
                C_1[0:4] = A_1[T.Ramp(0, 1, 4)] + B_1[T.Ramp(0, 1, 4)]
