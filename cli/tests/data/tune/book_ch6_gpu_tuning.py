# MLC book (seed 001) ch.6.1 §6.1.7 "Leveraging Automatic Program
# Optimization": the meta_schedule cell as written, after the cells it uses
# (MyModuleMatmul, num_flop and the arrays from §6.1.5). One change: the
# matrices are 128x128 instead of 1024x1024, so that 64 trials finish in
# seconds on a software Vulkan adapter (at 1024, see the README's GPU
# tuning figures). PDF copy damage fixed: the `. ./tune_tmp` path, the
# `→` continuation marks and the `.mean` split across lines. The last cell
# is the test's own: the tuned module computes A @ B.
# %%
import numpy as np
import tvm
from tvm.ir.module import IRModule
from tvm.script import tir as T

# %%
@tvm.script.ir_module
class MyModuleMatmul:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"),
             B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

# %%
num_flop = 2 * 128 * 128 * 128
dev = tvm.cuda(0)
A_np = np.random.uniform(size=(128, 128)).astype("float32")
B_np = np.random.uniform(size=(128, 128)).astype("float32")
A_nd = tvm.nd.array(A_np, dev)
B_nd = tvm.nd.array(B_np, dev)
C_nd = tvm.nd.array(np.zeros((128, 128), dtype="float32"), dev)

# %%
from tvm import meta_schedule as ms

database = ms.tune_tir(
    mod=MyModuleMatmul,
    target="nvidia/tesla-p100",
    max_trials_global=64,
    num_trials_per_iter=64,
    work_dir="./tune_tmp",
)
sch = ms.tir_integration.compile_tir(database, MyModuleMatmul, "nvidia/tesla-p100")
sch.mod.show()

rt_mod = tvm.build(sch.mod, target="nvidia/tesla-p100")
dev = tvm.cuda(0)
evaluator = rt_mod.time_evaluator("main", dev, number=10)

print("MetaSchedule: %f GFLOPS" % (num_flop / evaluator(A_nd, B_nd, C_nd).mean / 1e9))

# %%
np.testing.assert_allclose(C_nd.numpy(), A_np @ B_np, rtol=1e-4)
print("tuned module matches A @ B")
print(rt_mod.imported_modules[0].get_source()[:40])
