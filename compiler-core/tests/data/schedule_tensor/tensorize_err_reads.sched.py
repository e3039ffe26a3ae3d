# tvm: skip: tensorize crashes in TVM 0.27 (save_json segfaults) before it compares anything
# intrin: tmm16.intrin.py
# program: tensorize_book.py
# expect-error: block `matmul_o` reads 2 regions (A_global_A_reg, B_global_B_reg) but the description 3 (C, A, B)
block_mm = sch.get_block("matmul_o")
sch.tensorize(block_mm, "tmm16")
