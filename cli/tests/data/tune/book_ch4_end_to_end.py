# MLC book (seed 001) ch.4 §4.6 "Putting Things Back to End to End Model Execution": tune
# `linear0` of the MLP mixture module, put it back with `update_func`, run the VM.
# Changes from the book: the FashionMNIST image and the trained weights (downloads) are replaced by
# deterministic NumPy arrays, and the registered env.linear / env.relu use NumPy instead of PyTorch
# (as in relax_book_ch3_end_to_end.py); the `IPython.display.HTML(code2html(...))` cells print the
# script instead. The last cell is the test's own: the tuned module predicts what the original does.
# %%
import numpy as np
import tvm
from tvm import relax
from tvm.ir.module import IRModule
from tvm.script import relax as R
from tvm.script import tir as T
from tvm import meta_schedule as ms

# %%
img = (np.arange(784, dtype="float32") % 17 / 17).astype("float32").reshape(1, 28, 28)
mlp_params = {
    "w0": (np.sin(np.arange(128 * 784, dtype="float32") * 0.01).reshape(128, 784) / 16).astype("float32"),
    "b0": (np.cos(np.arange(128, dtype="float32")) / 4).astype("float32"),
    "w1": (np.sin(np.arange(10 * 128, dtype="float32") * 0.3).reshape(10, 128) / 4).astype("float32"),
    "b1": (np.arange(10, dtype="float32") / 10).astype("float32"),
}
class_names = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
               'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot']

# %%
data_nd = tvm.nd.array(img.reshape(1, 784))
nd_params = {k: tvm.nd.array(v) for k, v in mlp_params.items()}

# %%
@tvm.script.ir_module
class MyModuleMixture:
    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"),
                W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"),
                Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"),
             w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"),
             w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_dps_packed("linear0", (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out

# %%
@tvm.register_func("env.linear", override=True)
def numpy_linear(x, w, b, out):
    out.copyfrom(x.numpy() @ w.numpy().T + b.numpy())

@tvm.register_func("env.relu", override=True)
def numpy_relu(x, out):
    out.copyfrom(np.maximum(x.numpy(), 0))

# %%
MyModuleWithParams = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
ex = relax.build(MyModuleWithParams, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd)
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithParams Prediction:", class_names[pred_kind[0]])

# %%
ftimer = vm.module.time_evaluator("main", tvm.cpu(), number=100)
print("MyModuleWithParams time-cost: %g ms" % (ftimer(data_nd).mean * 1000))

# %%
mod_linear = tvm.IRModule.from_expr(MyModuleMixture["linear0"].with_attr("global_symbol", "main"))
print(mod_linear.script())

# %%
database = ms.tune_tir(
    mod=mod_linear,
    target="llvm --num-cores=1",
    max_trials_global=64,
    num_trials_per_iter=64,
    work_dir=".tune_tmp",
)
sch = ms.tir_integration.compile_tir(database, mod_linear, "llvm --num-cores=1")

# %%
MyModuleWithParams2 = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
new_func = sch.mod["main"].with_attr("global_symbol", "linear0")
gv = MyModuleWithParams2.get_global_var("linear0")
MyModuleWithParams2.update_func(gv, new_func)
print(MyModuleWithParams2.script())

# %%
ex = relax.build(MyModuleWithParams2, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd)
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithParams2 Prediction:", class_names[pred_kind[0]])

# %%
ftimer = vm.module.time_evaluator("main", tvm.cpu(), number=50)
print("MyModuleWithParams2 time-cost: %g ms" % (ftimer(data_nd).mean * 1000))

# %%
# (the test's own: the tuned linear0 gives the NumPy MLP's output)
lv0 = np.maximum(img.reshape(1, 784) @ mlp_params["w0"].T + mlp_params["b0"], 0)
np.testing.assert_allclose(nd_res.numpy(), lv0 @ mlp_params["w1"].T + mlp_params["b1"], rtol=1e-4, atol=1e-4)
print("the tuned model matches NumPy")
