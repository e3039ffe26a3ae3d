# A TE-generated function (te.create_prim_func): v_ names, T.reads inferred.
import tvm
from tvm import te, tirx

A = te.placeholder((128, 128), name="A")
B = te.placeholder((128, 128), name="B")
k = te.reduce_axis((0, 128), name="k")
C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
D = te.compute((128, 128), lambda i, j: te.max(C[i, j], tirx.const(0, "float32")), name="D")
Module = tvm.IRModule({"main": te.create_prim_func([A, B, D])})
