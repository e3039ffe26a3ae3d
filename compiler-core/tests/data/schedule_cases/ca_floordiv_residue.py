# compute_at of a per-group table read as G[c // 16] under a loop of 40 channels: the regenerated bounds divide exactly over the loop's range (an empty scope string is the global one)
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((80, 4), "float32"), Y: T.Buffer((80, 4), "float32")):
    G = T.alloc_buffer((5,), scope="")
    for g in range(5):
        with T.block("G"):
            vg = T.axis.spatial(5, g)
            G[vg] = T.Cast("float32", vg) * T.float32(2)
    for c_o, w, c_i in T.grid(2, 4, 40):
        with T.block("Y"):
            vc = T.axis.spatial(80, c_o * 40 + c_i)
            vw = T.axis.spatial(4, w)
            Y[vc, vw] = X[vc, vw] + G[vc // 16]
# --- schedule
g = sch.get_block("G")
y = sch.get_block("Y")
loops = sch.get_loops(y)
sch.compute_at(g, loops[0])
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((80, 4), "float32"), Y: T.Buffer((80, 4), "float32")):
        # with T.block("root"):
        G = T.alloc_buffer((5,))
        for c_o in range(2):
            for ax0 in range(3):
                with T.block("G"):
                    vg = T.axis.spatial(5, c_o * 2 + ax0)
                    T.reads()
                    T.writes(G[vg])
                    G[vg] = T.Cast("float32", vg) * T.float32(2.0)
            for w, c_i in T.grid(4, 40):
                with T.block("Y"):
                    vc = T.axis.spatial(80, c_o * 40 + c_i)
                    vw = T.axis.spatial(4, w)
                    T.reads(X[vc, vw], G[vc // 16])
                    T.writes(Y[vc, vw])
                    Y[vc, vw] = X[vc, vw] + G[vc // 16]
# --- trace
# b0 = sch.get_block(name="G", func_name="main")
# b1 = sch.get_block(name="Y", func_name="main")
# l2, l3, l4 = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)
