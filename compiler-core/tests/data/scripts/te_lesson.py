# Seed 003 (TE lesson, "Tensor Expressions"): the conv2d declaration, then the full matmul example.
# Both run unchanged; the example then calls `te.create_schedule`, which TVM 0.27 removed: TVM ends
# with an AttributeError (the .out), Tessel translates the TE schedule into TensorIR and runs on (the
# test compares the part TVM runs). The lesson's other schedule cells are
# `../scripts_legacy_te/te_lesson_schedules.py`; `te_lesson_port.py` uses 0.27's API instead.
# The first snippet (`A = te.placeholder((M, N), ...)` with M, N, K never defined) is a NameError in
# any Python and is left out.
# %%
import tvm
from tvm import te
import numpy as np

# %%
# Parameters
batch, in_channel, in_h, in_w = 1, 3, 224, 224
out_channel, kernel_h, kernel_w = 64, 3, 3
pad_h, pad_w = 1, 1
out_h = in_h - kernel_h + 2 * pad_h + 1 # 224
out_w = in_w - kernel_w + 2 * pad_w + 1 # 224
# Inputs
Data = te.placeholder((batch, in_channel, in_h, in_w), name="Data")
Weight = te.placeholder((out_channel, in_channel, kernel_h, kernel_w), name="Weight")
# Padded input
PaddedData = te.compute(
(batch, in_channel, in_h + 2*pad_h, in_w + 2*pad_w),
lambda n, c, h, w: tvm.tir.if_then_else(
tvm.tir.all(h >= pad_h, h < in_h + pad_h, w >= pad_w, w < in_w + pad_w),
Data[n, c, h - pad_h, w - pad_w],
tvm.tir.const(0.0, "float32")
),
name="PaddedData"
)
# Reduction axes
rc = te.reduce_axis((0, in_channel), name="rc")
rh = te.reduce_axis((0, kernel_h), name="rh")
rw = te.reduce_axis((0, kernel_w), name="rw")
# Conv2d computation
Conv = te.compute(
(batch, out_channel, out_h, out_w),
lambda n, co, h, w: te.sum(
PaddedData[n, rc, h + rh, w + rw] * Weight[co, rc, rh, rw],
axis=[rc, rh, rw]
),
name="Conv"
)

# %%
# (Tessel check, not in the lesson: what the declarations are.)
print(Conv, Conv.dtype, Conv.op.axis, Conv.op.reduce_axis)
te.create_prim_func([Data, Weight, Conv]).show()

# %%
import tvm
from tvm import te
import numpy as np
M, K, N = 1024, 1024, 1024
# Declare inputs
A = te.placeholder((M, K), name="A", dtype="float32")
B = te.placeholder((K, N), name="B", dtype="float32")
# Declare computation
k = te.reduce_axis((0, K), name="k")
C = te.compute(
(M, N),
lambda i, j: te.sum(A[i, k] * B[k, j], axis=k),
name="C"
)
# Create default schedule (naive triple loop)
s = te.create_schedule(C.op)
# Lower to see the generated loops
print(tvm.lower(s, [A, B, C], simple_mode=True))
