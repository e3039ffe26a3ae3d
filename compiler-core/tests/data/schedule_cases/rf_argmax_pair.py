# rfactor of an argmax over (index, value) pairs: two reduction buffers, each with its own rfactor buffer, updated through lets
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((8, 24), "float32"), best_i: T.Buffer((8,), "int32"), best_v: T.Buffer((8,), "float32")):
    for r, c in T.grid(8, 24):
        with T.block("best"):
            vr, vc = T.axis.remap("SR", [r, c])
            with T.init():
                best_i[vr] = -1
                best_v[vr] = T.min_value("float32")
            new_i: T.let[T.int32] = T.Select(best_v[vr] >= X[vr, vc], best_i[vr], vc)
            new_v: T.let[T.float32] = T.Select(best_v[vr] >= X[vr, vc], best_v[vr], X[vr, vc])
            best_i[vr] = new_i
            best_v[vr] = new_v
# --- schedule
b = sch.get_block("best")
r, c = sch.get_loops(b)
co, ci = sch.split(c, factors=[None, 6])
sch.rfactor(ci, 1)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((8, 24), "float32"), best_i: T.Buffer((8,), "int32"), best_v: T.Buffer((8,), "float32")):
        # with T.block("root"):
        best_i_rf = T.alloc_buffer((8, 6), "int32")
        best_v_rf = T.alloc_buffer((8, 6))
        for r, c_0, c_1 in T.grid(8, 4, 6):
            with T.block("best_rf"):
                vc_1, vr, vc_0 = T.axis.remap("SSR", [c_1, r, c_0])
                T.reads(X[vr, vc_0 * 6 + vc_1])
                T.writes(best_i_rf[vr, vc_1], best_v_rf[vr, vc_1])
                with T.init():
                    best_i_rf[vr, vc_1] = -1
                    best_v_rf[vr, vc_1] = T.float32(-340282346638528859811704183484516925440.0)
                v_best_i_rf: T.int32 = T.Select(best_v_rf[vr, vc_1] >= X[vr, vc_0 * 6 + vc_1], best_i_rf[vr, vc_1], vc_0 * 6 + vc_1)
                v_best_v_rf: T.float32 = T.Select(best_v_rf[vr, vc_1] >= X[vr, vc_0 * 6 + vc_1], best_v_rf[vr, vc_1], X[vr, vc_0 * 6 + vc_1])
                best_i_rf[vr, vc_1] = v_best_i_rf
                best_v_rf[vr, vc_1] = v_best_v_rf
        for r, c_1 in T.grid(8, 6):
            with T.block("best"):
                vc_1, vr = T.axis.remap("RS", [c_1, r])
                T.reads(best_i_rf[vr, vc_1], best_v_rf[vr, vc_1])
                T.writes(best_i[vr], best_v[vr])
                with T.init():
                    best_i[vr] = -1
                    best_v[vr] = T.float32(-340282346638528859811704183484516925440.0)
                v_best_i: T.int32 = T.Select(best_v[vr] >= best_v_rf[vr, vc_1], best_i[vr], best_i_rf[vr, vc_1])
                v_best_v: T.float32 = T.Select(best_v[vr] >= best_v_rf[vr, vc_1], best_v[vr], best_v_rf[vr, vc_1])
                best_i[vr] = v_best_i
                best_v[vr] = v_best_v
# --- trace
# b0 = sch.get_block(name="best", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3, l4 = sch.split(loop=l2, factors=[None, 6], preserve_unit_iters=True, disable_predication=False)
# b5 = sch.rfactor(loop=l4, factor_axis=1)
