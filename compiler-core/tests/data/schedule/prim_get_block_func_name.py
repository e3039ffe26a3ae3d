# Primitive case: `get_block` with `func_name` in a module of two functions (MyModuleWithTwoFunctions,
# seed 001 §2.4.3), then a split in `relu` to show which function the handle points into.
# values: block_B
# numerics: skip (two functions; covered elsewhere)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleWithTwoFunctions:
    @T.prim_func
    def mm(A: T.Buffer((128, 128), "float32"),
           B: T.Buffer((128, 128), "float32"),
           Y: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def relu(A: T.Buffer((128, 128), "float32"),
              B: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": True})
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))
# --- schedule ---
block_B = sch.get_block("B", func_name="relu")
i, j = sch.get_loops(block_B)
i0, i1 = sch.split(i, factors=[None, 32])
