# MLC book chapter 5 ("Integration with Machine Learning Frameworks"), §5.3-5.6: tensor expressions
# turned into graph bindings with bb.emit_te, the BlockBuilder scopes, the MLP mapped onto topi
# (topi.nn.dense + topi.add) and built, and the same model with high-level operators. Changes from
# the book: PyTorch (torch.fx tracing, nn.Module, the FashionMNIST pickle) is replaced by NumPy: the
# weights are small deterministic arrays (64 -> 32 -> 10) and the "framework" model is a list of
# layers that `from_layers` maps, as `from_fx` maps a traced graph; the results are compared with
# NumPy.
import numpy as np
import tvm
from tvm import relax, te, topi
from tvm.ir.module import IRModule
from tvm.script import relax as R

# §5.3.1 Tensor expressions
def te_matmul(A: te.Tensor, B: te.Tensor) -> te.Tensor:
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")

def te_relu(A: te.Tensor) -> te.Tensor:
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")

# §5.3.2 Use BlockBuilder to Create an IRModule
A = relax.Var("A", relax.TensorStructInfo((16, 16), "float32"))
B = relax.Var("B", relax.TensorStructInfo((16, 16), "float32"))

bb = relax.BlockBuilder()

with bb.function("main"):
    with bb.dataflow():
        C = bb.emit_te(te_matmul, A, B)
        D = bb.emit_te(te_relu, C)
        R = bb.emit_output(D)
    bb.emit_func_output(R, params=[A, B])

MyModule = bb.get()
MyModule.show()

# §5.3.3 Deep dive into the BlockBuilder APIs
print(type(C))
print(isinstance(C, relax.Var))

# Parameters given at the beginning; the same TE function twice is one PrimFunc.
bb = relax.BlockBuilder()
with bb.function("main", params=[A, B]):
    with bb.dataflow():
        C = bb.emit_te(te_matmul, A, B)
        D = bb.emit_te(te_relu, C)
        E = bb.emit_te(te_relu, D)
        R = bb.emit_output(E)
    bb.emit_func_output(R)
MyModule2 = bb.get()
MyModule2.show()

a_np = (np.arange(256, dtype="float32").reshape(16, 16) % 5 - 2).astype("float32")
b_np = (np.arange(256, dtype="float32").reshape(16, 16) % 3 - 1).astype("float32")
vm = relax.VirtualMachine(relax.build(MyModule2, target="llvm"), tvm.cpu())
out = vm["main"](tvm.nd.array(a_np), tvm.nd.array(b_np)).numpy()
print("matmul relu close to NumPy:", np.allclose(out, np.maximum(a_np @ b_np, 0)))

# §5.4-5.5 A model mapped to TensorIR through topi (PyTorch replaced by NumPy layers)
mlp_params = {
    "w0": (np.sin(np.arange(32 * 64, dtype="float32")).reshape(32, 64) / 8).astype("float32"),
    "b0": (np.cos(np.arange(32, dtype="float32")) / 4).astype("float32"),
    "w1": (np.sin(np.arange(10 * 32, dtype="float32") * 0.5).reshape(10, 32) / 4).astype("float32"),
    "b1": (np.arange(10, dtype="float32") / 10).astype("float32"),
}
layers = [("linear", "w0", "b0"), ("relu",), ("linear", "w1", "b1")]

def map_param(name):
    return relax.const(mlp_params[name], "float32")

def map_nn_linear(bb, x, layer):
    w = map_param(layer[1])
    b = map_param(layer[2])
    y = bb.emit_te(topi.nn.dense, x, w)
    return bb.emit_te(topi.add, y, b)

def map_nn_relu(bb, x, layer):
    return bb.emit_te(topi.nn.relu, x)

def from_layers(layers, input_shape, module_map):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(input_shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = x
            for layer in layers:
                y = module_map[layer[0]](bb, y, layer)
            output = bb.emit_output(y)
        bb.emit_func_output(output)
    return bb.get()

MLPModule = from_layers(layers, (1, 64), {"linear": map_nn_linear, "relu": map_nn_relu})
MLPModule.show()

class_names = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
               'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot']
img = (np.arange(64, dtype="float32").reshape(1, 64) % 7 / 7).astype("float32")
numpy_res = np.maximum(img @ mlp_params["w0"].T + mlp_params["b0"], 0) @ mlp_params["w1"].T + mlp_params["b1"]
print("NumPy Prediction:", class_names[np.argmax(numpy_res, axis=1)[0]])

ex = relax.build(MLPModule, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
data_nd = tvm.nd.array(img.reshape(1, 64))

nd_res = vm["main"](data_nd)

pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MLPModule Prediction:", class_names[pred_kind[0]])
print("MLPModule close to NumPy:", np.allclose(nd_res.numpy(), numpy_res, rtol=1e-5, atol=1e-5))

# §5.6 Translating into high-level operators
def map_nn_relu_op(bb, x, layer):
    return bb.emit(relax.op.nn.relu(x))

def map_nn_linear_op(bb, x, layer):
    w = map_param(layer[1])
    b = map_param(layer[2])
    return bb.emit(relax.op.linear(x, w, b))

MLPModuleHighLevel = from_layers(layers, (1, 64), {"linear": map_nn_linear_op, "relu": map_nn_relu_op})
MLPModuleHighLevel.show()

# The high-level module lowered by the graph passes (chapter 7's pipeline) computes the same.
seq = tvm.transform.Sequential([
    relax.transform.LegalizeOps(),
    relax.transform.AnnotateTIROpPattern(),
    relax.transform.FuseOps(),
    relax.transform.FuseTIR(),
])
MLPModuleLowered = seq(MLPModuleHighLevel)
MLPModuleLowered.show()
vm = relax.VirtualMachine(relax.build(MLPModuleLowered, target="llvm"), tvm.cpu())
res = vm["main"](data_nd).numpy()
print("MLPModuleLowered Prediction:", class_names[np.argmax(res, axis=1)[0]])
print("MLPModuleLowered close to NumPy:", np.allclose(res, numpy_res, rtol=1e-5, atol=1e-5))

# Chapter 3 §3.8: weights as parameters, bound into the module with BindParams.
x = relax.Var("x", relax.TensorStructInfo((1, 64), "float32"))
w0 = relax.Var("w0", relax.TensorStructInfo((32, 64), "float32"))
b0 = relax.Var("b0", relax.TensorStructInfo((32,), "float32"))
w1 = relax.Var("w1", relax.TensorStructInfo((10, 32), "float32"))
b1 = relax.Var("b1", relax.TensorStructInfo((10,), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x, w0, b0, w1, b1]):
    with bb.dataflow():
        lv0 = bb.emit_te(topi.nn.dense, x, w0)
        lv1 = bb.emit_te(topi.add, lv0, b0)
        lv2 = bb.emit_te(topi.nn.relu, lv1)
        lv3 = bb.emit_te(topi.nn.dense, lv2, w1)
        out = bb.emit_output(bb.emit_te(topi.add, lv3, b1))
    bb.emit_func_output(out)
MyModuleWithParams = bb.get()
nd_params = {k: tvm.nd.array(v) for k, v in mlp_params.items()}
MyModuleWithParams2 = relax.transform.BindParams("main", nd_params)(MyModuleWithParams)
MyModuleWithParams2["main"].show()
ex = relax.build(MyModuleWithParams2, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd)
print("MyModuleWithParams2 Prediction:", class_names[np.argmax(nd_res.numpy(), axis=1)[0]])
print("MyModuleWithParams2 close to NumPy:", np.allclose(nd_res.numpy(), numpy_res, rtol=1e-5, atol=1e-5))
