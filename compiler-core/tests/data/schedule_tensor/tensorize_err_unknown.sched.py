# tvm: skip: tensorize crashes in TVM 0.27 (save_json segfaults) before it compares anything
# intrin: tmm16.intrin.py
# program: tensorize_book.py
# expect-error: no tensor intrinsic named `tmm8` is registered (known: tmm16)
block_mm = sch.get_block("matmul_o")
i_0, j_0, k_0 = sch.get_loops(block_mm)
sch.decompose_reduction(block_mm, k_0)
sch.tensorize(block_mm, "tmm8")
