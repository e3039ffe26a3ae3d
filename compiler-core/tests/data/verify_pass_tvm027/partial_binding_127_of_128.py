# TVM 0.27's generation of verify_fail/seed001_loop_extent_127_vs_axis_128.py: a loop of 127 bound
# to an iterator of domain 128. The course (`T.block`) calls this an error; TVM 0.27 runs the block
# for the part of its domain the loop reaches, and Tessel accepts it in the `T.sblock` generation.
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
import tvm
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(127):
        with T.sblock("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
