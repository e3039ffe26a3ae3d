# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §6.2.3 "Tensorization", lines 4788-4808:
#   tmm16_desc, the description half of the tensor intrinsic (bare T.prim_func, explicit root block
#   with T.reads/T.writes, match_buffer with offset_factor and scope, an unnamed block "").
# Fixes: (1) three `T.match_buffer(...)` lines wrapped by the PDF (wrap arrow before the scope string)
#   were re-joined. (2) the code block is split by a page break; the loop nest after it lost its
#   indentation and was re-indented into `with T.block("root"):`.
import tvm
from tvm.script import tir as T

@T.prim_func
def tmm16_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, scope="global.A_reg")
    B = T.match_buffer(b, (16, 16), "float32", offset_factor=16, scope="global.B_reg")
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=16, scope="global.accumulator")

    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        for i, j, k in T.grid(16, 16, 16):
            with T.block(""):
                vij, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                C[vij, vjj] = C[vij, vjj] + A[vij, vkk] * B[vjj, vkk]
