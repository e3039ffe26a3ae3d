# Source: seed 001 (001_0efb66a8e9a300ba.txt, MLC book), §6.2.2 "A Block with Tensorized Computation",
#   lines 4637-4664: MatmulBlockModule (a 16x16x16 tensorized block with nested blocks inside T.init).
# Fixes: (1) the code block is split by a page break; the second half lost its indentation in the PDF
#   extraction and was re-indented into the function. (2) in the extracted text the `for i1, j1, k1` loop
#   nest sat at the same depth as the loop inside `with T.init():`; it is restored as a sibling of
#   `with T.init():` (the update part of block "tmm-16x16"), as in the course notebook this book is
#   built from. (3) one line wrapped by the PDF (wrap arrow before `vj1`) was re-joined. The
#   backslash line continuation after `+=` is the seed's own and is kept.
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MatmulBlockModule:
    @T.prim_func
    def main(
        A: T.Buffer((1024, 1024), "float32"),
        B: T.Buffer((1024, 1024), "float32"),
        C: T.Buffer((1024, 1024), "float32"),
    ) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i0, j0, k0 in T.grid(64, 64, 64):
            with T.block("tmm-16x16"):
                vi0, vj0, vk0 = T.axis.remap("SSR", [i0, j0, k0])
                with T.init():
                    for i1, j1 in T.grid(16, 16):
                        with T.block("tmm_init"):
                            vi1, vj1 = T.axis.remap("SS", [i1, j1])
                            C[vi0 * 16 + vi1, vj0 * 16 + vj1] = T.float32(0)

                for i1, j1, k1 in T.grid(16, 16, 16):
                    with T.block("tmm"):
                        vi1, vj1, vk1 = T.axis.remap("SSR", [i1, j1, k1])
                        C[vi0 * 16 + vi1, vj0 * 16 + vj1] += \
                            A[vi0 * 16 + vi1, vk0 * 16 + vk1] * B[vj0 * 16 + vj1, vk0 * 16 + vk1]
