# Built for three GPU targets; run with WGPU_BACKEND=dx12 (no such adapter
# on Linux) the CLI falls back to the reference interpreter with one note;
# the generated WGSL is still there.
import numpy as np
import tvm
from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for i in T.thread_binding(64, thread="threadIdx.x"):
        with T.block("A"):
            vi = T.axis.remap("S", [i])
            A[vi] = A[vi] + T.float32(1)
a = tvm.nd.array(np.zeros(64, dtype='float32'))
for t in ['cuda', 'webgpu', 'metal']:
    tvm.build(f, target=t)(a)
print(a.numpy()[:3])
rt_mod = tvm.build(f, target='webgpu')
src = rt_mod.imported_modules[0].get_source()
print('@compute' in src, src == rt_mod.get_source())
