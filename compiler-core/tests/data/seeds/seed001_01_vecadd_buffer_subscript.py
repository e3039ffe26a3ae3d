# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §2.2 Fig. 2.2.1, lines 210-223; the identical
#   program of §2.2.1 Fig. 2.2.3 (lines 248-261) is de-duplicated into this file.
# Fixes: none. Note: old `T.Buffer[128, "float32"]` subscript syntax.
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer[128, "float32"],
        B: T.Buffer[128, "float32"],
        C: T.Buffer[128, "float32"]):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi] + B[vi]
