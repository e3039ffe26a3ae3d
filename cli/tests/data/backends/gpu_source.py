# Generated source and mixed modules on a GPU target (native backend only:
# the reference interpreter generates no source).
import numpy as np
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModuleWindowSum:
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.grid(1024):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]

sch = tvm.tir.Schedule(MyModuleWindowSum)
nthread = 128
block_C = sch.get_block("C")
i, = sch.get_loops(block=block_C)
i0, i1 = sch.split(i, [None, nthread])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
A_shared = sch.cache_read(block_C, read_buffer_index=0, storage_scope="shared")
sch.compute_at(A_shared, i1)
ax = sch.get_loops(A_shared)[-1]
ax0, ax1 = sch.split(ax, [None, nthread])
sch.bind(ax1, "threadIdx.x")

rt_mod = tvm.build(sch.mod, target="cuda")
print(len(rt_mod.imported_modules), rt_mod.imported_modules[0].type_key)
print("=== device source")
print(rt_mod.imported_modules[0].get_source())
print("=== host source")
print(rt_mod.get_source())
print("=== end")

# TVM's split: thread-bound functions are kernels, the others run on the host.
@tvm.script.ir_module
class Mixed:
    @T.prim_func
    def host_add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)

    @T.prim_func
    def gpu_add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in T.thread_binding(8, thread="threadIdx.x"):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(2)

lib = tvm.build(Mixed, target={"kind": "webgpu", "host": "llvm"})
a = tvm.nd.array(np.arange(8).astype("float32"))
b = tvm.nd.array(np.zeros(8, dtype="float32"))
lib["host_add"](a, b)
print("host:", b.numpy())
lib["gpu_add"](a, b)
print("gpu:", b.numpy())
print("kernels:", lib.imported_modules[0].get_source().count("@compute"))

# A thread-bound function with a top-level loop left unbound.
@T.prim_func
def half_bound(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i in range(8):
        for j in T.thread_binding(8, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

try:
    tvm.build(half_bound, target="webgpu")
except Exception as e:
    print(type(e).__name__ + ":", e)

# CPU builds: the module's text format.
cpu = tvm.build(Mixed, target="llvm -mcpu=native")
wat = cpu.get_source()
print("wat:", wat.startswith("(module"), "host_add" in wat, len(cpu.imported_modules))
