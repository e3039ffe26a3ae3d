# expect: error: loop `i` has extent 127 but is bound to a block iterator of domain 128 (`T.axis.spatial(128, i)`) -- "error here due to iterator size mismatch"
#   NOTE: TVM 0.27 itself accepts this program (see below), although both seeds call it an error;
#   Tessel rejects it in the course's `T.block` generation and accepts its `T.sblock` twin
#   (verify_pass_tvm027/partial_binding_127_of_128.py), as TVM 0.27 does (see `ApiGeneration`).
# TVM 0.27: accepted (parse, s_tir Schedule construction and llvm compile all succeed)
# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book) §2.4.3 "Why Extra Information in Block",
#   lines 530-537, and the same fragment in seed 004 (004_2748a0a0fad1bc5e.txt) lines 140-146:
#       # wrong program due to loop and block iteration mismatch
#       for i in range(127):
#           with T.block("C"):
#               vi = T.axis.spatial(128, i)
#               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#               error here due to iterator size mismatch
#           ...
#   The seeds show only this fragment; it was completed into a full function (signature and the `C[vi] = A[vi]`
#   body, like the seeds' vector examples) so that it can be checked.
import tvm
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    # wrong program due to loop and block iteration mismatch
    for i in range(127):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi]
