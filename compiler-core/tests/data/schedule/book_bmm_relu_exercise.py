# Source: seed 001 §2.5.2 "Exercise 3: Transform a batch matmul program", lines 1250-1356.
# MyBmmRelu is the exercise's answer to "write the TensorIR for bmm_relu" (the skeleton
# seed001_09 has no body): Y[n,i,j] = sum_k A[n,i,k] * B[n,k,j], C = max(Y, 0), loop and
# iterator names chosen as in TargetModule (seed001_10).
# The schedule follows the book's hints (get blocks, get loops, split k, reorder,
# compute_at, decompose_reduction, vectorize/parallel/unroll) and reaches TargetModule
# exactly (checked by TVM, `target:` below). Order matters in TVM 0.27: `parallel(b)` must
# come before `decompose_reduction` (afterwards the subtree of `b` holds `Y_update`, a block
# with neither init nor completeness, and TVM refuses "does not have compact dataflow");
# the vectorize of `Y_init`'s loop can only come after it.
# target: ../seeds/seed001_10_bmm_relu_target.py
# numerics: skip (16x128x128x128 multiply-adds)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyBmmRelu:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"),
                 B: T.Buffer((16, 128, 128), "float32"),
                 C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((16, 128, 128), dtype="float32")
        for i0, i1, i2, i3 in T.grid(16, 128, 128, 128):
            with T.block("Y"):
                n, i, j, k = T.axis.remap("SSSR", [i0, i1, i2, i3])
                with T.init():
                    Y[n, i, j] = T.float32(0)
                Y[n, i, j] = Y[n, i, j] + A[n, i, k] * B[n, k, j]
        for i0, i1, i2 in T.grid(16, 128, 128):
            with T.block("C"):
                n, i, j = T.axis.remap("SSS", [i0, i1, i2])
                C[n, i, j] = T.max(Y[n, i, j], T.float32(0))
# --- schedule ---
# Step 1. Get blocks
Y = sch.get_block("Y", func_name="bmm_relu")
C = sch.get_block("C", func_name="bmm_relu")
# Step 2. Get loops
b, i, j = sch.get_loops(C)
# Step 3. Organize the loops
j0, j1 = sch.split(j, factors=[None, 8])
sch.compute_at(Y, j0)
ax0, ax1 = sch.get_loops(Y)[-2:]
k0, k1 = sch.split(ax1, factors=[None, 4])
sch.reorder(k0, k1, ax0)
# Step 5 (first part). parallel / unroll / vectorize before decomposing
sch.parallel(b)
sch.unroll(k1)
sch.vectorize(j1)
# Step 4. decompose reduction
Y_init = sch.decompose_reduction(Y, k0)
# Step 5 (second part). vectorize the initialisation
sch.vectorize(sch.get_loops(Y_init)[-1])
