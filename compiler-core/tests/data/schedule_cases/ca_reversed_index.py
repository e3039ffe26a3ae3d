# compute_at of a producer that writes its rows in reverse (`Y[7 - vi]`): the region it writes is
# still all of Y, so the scope is a stage pipeline and the producer moves under the consumer's row loop
from tvm.script import tir as T
@T.prim_func
def main(X: T.Buffer((8, 8), "float32"), Z: T.Buffer((8, 8), "float32")):
    Y = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[7 - vi, vj] = X[vi, vj] * T.float32(3)
    for i, j in T.grid(8, 8):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] - T.float32(1)
# --- schedule
y = sch.get_block("Y")
z = sch.get_block("Z")
i, j = sch.get_loops(z)
sch.compute_at(y, i)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(X: T.Buffer((8, 8), "float32"), Z: T.Buffer((8, 8), "float32")):
        # with T.block("root"):
        Y = T.alloc_buffer((8, 8))
        for i in range(8):
            for ax0 in range(8):
                with T.block("Y"):
                    vi = T.axis.spatial(8, 7 - i)
                    vj = T.axis.spatial(8, ax0)
                    T.reads(X[vi, vj])
                    T.writes(Y[7 - vi, vj])
                    Y[7 - vi, vj] = X[vi, vj] * T.float32(3.0)
            for j in range(8):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(Y[vi, vj])
                    T.writes(Z[vi, vj])
                    Z[vi, vj] = Y[vi, vj] - T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="Y", func_name="main")
# b1 = sch.get_block(name="Z", func_name="main")
# l2, l3 = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)
