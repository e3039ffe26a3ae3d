# rfactor of an argmin that keeps the first index on ties, with its init and its stores listed value first: the buffers follow the order of the lets
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((6, 20), "float32"), low_v: T.Buffer((6,), "float32"), low_i: T.Buffer((6,), "int32")):
    for r, c in T.grid(6, 20):
        with T.block("low"):
            vr, vc = T.axis.remap("SR", [r, c])
            with T.init():
                low_v[vr] = T.max_value("float32")
                low_i[vr] = -1
            ni: T.let[T.int32] = T.Select(low_v[vr] < X[vr, vc] or low_v[vr] == X[vr, vc] and low_i[vr] < vc, low_i[vr], vc)
            nv: T.let[T.float32] = T.Select(low_v[vr] < X[vr, vc], low_v[vr], X[vr, vc])
            low_v[vr] = nv
            low_i[vr] = ni
# --- schedule
b = sch.get_block("low")
r, c = sch.get_loops(b)
co, ci = sch.split(c, factors=[4, None])
sch.rfactor(co, 0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((6, 20), "float32"), low_v: T.Buffer((6,), "float32"), low_i: T.Buffer((6,), "int32")):
        # with T.block("root"):
        low_i_rf = T.alloc_buffer((4, 6), "int32")
        low_v_rf = T.alloc_buffer((4, 6))
        for r, c_0, c_1 in T.grid(6, 4, 5):
            with T.block("low_rf"):
                vc_0, vr, vc_1 = T.axis.remap("SSR", [c_0, r, c_1])
                T.reads(X[vr, vc_0 * 5 + vc_1])
                T.writes(low_v_rf[vc_0, vr], low_i_rf[vc_0, vr])
                with T.init():
                    low_i_rf[vc_0, vr] = -1
                    low_v_rf[vc_0, vr] = T.float32(340282346638528859811704183484516925440.0)
                v_low_i_rf: T.int32 = T.Select(low_v_rf[vc_0, vr] < X[vr, vc_0 * 5 + vc_1] or low_v_rf[vc_0, vr] == X[vr, vc_0 * 5 + vc_1] and low_i_rf[vc_0, vr] < vc_0 * 5 + vc_1, low_i_rf[vc_0, vr], vc_0 * 5 + vc_1)
                v_low_v_rf: T.float32 = T.Select(low_v_rf[vc_0, vr] < X[vr, vc_0 * 5 + vc_1], low_v_rf[vc_0, vr], X[vr, vc_0 * 5 + vc_1])
                low_i_rf[vc_0, vr] = v_low_i_rf
                low_v_rf[vc_0, vr] = v_low_v_rf
        for r, c_0 in T.grid(6, 4):
            with T.block("low"):
                vc_0, vr = T.axis.remap("RS", [c_0, r])
                T.reads(low_i_rf[vc_0, vr], low_v_rf[vc_0, vr])
                T.writes(low_i[vr], low_v[vr])
                with T.init():
                    low_i[vr] = -1
                    low_v[vr] = T.float32(340282346638528859811704183484516925440.0)
                v_low_i: T.int32 = T.Select(low_v[vr] < low_v_rf[vc_0, vr] or low_v[vr] == low_v_rf[vc_0, vr] and low_i[vr] < low_i_rf[vc_0, vr], low_i[vr], low_i_rf[vc_0, vr])
                v_low_v: T.float32 = T.Select(low_v[vr] < low_v_rf[vc_0, vr], low_v[vr], low_v_rf[vc_0, vr])
                low_i[vr] = v_low_i
                low_v[vr] = v_low_v
# --- trace
# b0 = sch.get_block(name="low", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3, l4 = sch.split(loop=l2, factors=[4, None], preserve_unit_iters=True, disable_predication=False)
# b5 = sch.rfactor(loop=l3, factor_axis=0)
