# The MLC book's two-layer MLP (chapters 3 and 5), trained on scikit-learn's 8x8 digits
# (64 -> 128 -> 10) by tools/mlp/train_digits.py, built three ways and run with relax.build +
# relax.VirtualMachine: (1) relax.BlockBuilder with relax.op.*, (2) the book's "mixture" module
# with a TensorIR linear layer (R.call_tir) and NumPy functions registered with tvm.register_func
# (R.call_dps_packed), (3) the weights bound as constants. Each prints its predictions next to NumPy's.
# (4) the full flow: bb.emit_te with topi, FuseOps/FuseTIR, one fused kernel scheduled (split +
# reorder), built and run on all shipped images, with accuracy and a timing line.
# Generated from tools/mlp/mlp_template.py: edit the template, then re-run the training script.
# tessel-test: mask-after images (ms):
import numpy as np
import tvm
from tvm import relax, topi
from tvm.script import relax as R
from tvm.script import tir as T

# @@DATA@@

def dequantize(q, scale, shape):
    return (np.array(q, dtype="float32") * np.float32(scale)).reshape(shape)

w0 = dequantize(W0_Q, W0_SCALE, W0_SHAPE)
b0 = dequantize(B0_Q, B0_SCALE, B0_SHAPE)
w1 = dequantize(W1_Q, W1_SCALE, W1_SHAPE)
b1 = dequantize(B1_Q, B1_SCALE, B1_SHAPE)
images = np.array(IMAGES, dtype="float32").reshape(len(LABELS), 64) / np.float32(16)
print("weights:", w0.shape, b0.shape, w1.shape, b1.shape, "images:", images.shape)

# NumPy reference: linear -> relu -> linear, as in the book's numpy_mlp.
def numpy_mlp(data):
    lv0 = data @ w0.T + b0
    lv1 = np.maximum(lv0, 0)
    return lv1 @ w1.T + b1

numpy_logits = numpy_mlp(images)
numpy_pred = [int(p) for p in np.argmax(numpy_logits, axis=1)]
print("NumPy predictions:", numpy_pred)
print("labels:           ", LABELS)
numpy_correct = sum(1 for p, l in zip(numpy_pred, LABELS) if p == l)
print("NumPy accuracy:", numpy_correct, "/", len(LABELS))

# ---- (1) BlockBuilder with high-level operators
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo((1, 64), "float32"))
p_w0 = relax.Var("w0", relax.TensorStructInfo((128, 64), "float32"))
p_b0 = relax.Var("b0", relax.TensorStructInfo((128,), "float32"))
p_w1 = relax.Var("w1", relax.TensorStructInfo((10, 128), "float32"))
p_b1 = relax.Var("b1", relax.TensorStructInfo((10,), "float32"))
with bb.function("main", [x, p_w0, p_b0, p_w1, p_b1]):
    with bb.dataflow():
        lv0 = bb.emit(relax.op.linear(x, p_w0, p_b0))
        lv1 = bb.emit(relax.op.nn.relu(lv0))
        out = bb.emit_output(relax.op.linear(lv1, p_w1, p_b1))
    bb.emit_func_output(out)
MLPModule = bb.get()
MLPModule.show()

ex = relax.build(MLPModule, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
params = [tvm.nd.array(w0), tvm.nd.array(b0), tvm.nd.array(w1), tvm.nd.array(b1)]

def run_vm(vm, with_params):
    logits = []
    for i in range(len(LABELS)):
        data = tvm.nd.array(images[i : i + 1])
        args = [data] + params if with_params else [data]
        logits.append(vm["main"](*args).numpy()[0])
    return np.array(logits)

bb_logits = run_vm(vm, True)
bb_pred = [int(p) for p in np.argmax(bb_logits, axis=1)]
print("BlockBuilder predictions:", bb_pred)
print("same classes as NumPy:", bb_pred == numpy_pred)
print("logits close to NumPy:", np.allclose(bb_logits, numpy_logits, rtol=1e-5, atol=1e-5))

# ---- (2) the book's mixture: TensorIR linear0 via call_tir, NumPy env.relu / env.linear via call_dps_packed
@tvm.register_func("env.linear", override=True)
def numpy_linear(x, w, b, out):
    out.copyfrom(x.numpy() @ w.numpy().T + b.numpy())

@tvm.register_func("env.relu", override=True)
def numpy_relu(x, out):
    out.copyfrom(np.maximum(x.numpy(), 0))

@tvm.script.ir_module
class MyModuleMixture:
    @T.prim_func
    def linear0(X: T.Buffer((1, 64), "float32"),
                W: T.Buffer((128, 64), "float32"),
                B: T.Buffer((128,), "float32"),
                Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 64):
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
    def main(x: R.Tensor((1, 64), "float32"),
             w0: R.Tensor((128, 64), "float32"),
             b0: R.Tensor((128,), "float32"),
             w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_tir(MyModuleMixture.linear0, (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out

ex = relax.build(MyModuleMixture, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
mix_logits = run_vm(vm, True)
mix_pred = [int(p) for p in np.argmax(mix_logits, axis=1)]
print("mixture predictions:", mix_pred)
print("same classes as NumPy:", mix_pred == numpy_pred)
print("logits close to NumPy:", np.allclose(mix_logits, numpy_logits, rtol=1e-5, atol=1e-5))

# ---- (3) the weights bound as constants: main takes the image only
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo((1, 64), "float32"))
with bb.function("main", [x]):
    with bb.dataflow():
        lv0 = bb.emit(relax.op.linear(x, relax.const(w0), relax.const(b0)))
        lv1 = bb.emit(relax.op.nn.relu(lv0))
        out = bb.emit_output(relax.op.linear(lv1, relax.const(w1), relax.const(b1)))
    bb.emit_func_output(out)
vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
const_logits = run_vm(vm, False)
const_pred = [int(p) for p in np.argmax(const_logits, axis=1)]
print("constant-weights predictions:", const_pred)
print("same classes as NumPy:", const_pred == numpy_pred)
print("logits close to NumPy:", np.allclose(const_logits, numpy_logits, rtol=1e-5, atol=1e-5))

# ---- (4) the full flow: bb.emit_te with topi -> FuseOps / FuseTIR -> schedule one fused kernel
# (split + reorder, as in the book) -> build -> run on every shipped image at once
n_img = len(LABELS)
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo((n_img, 64), "float32"))
with bb.function("main", [x]):
    with bb.dataflow():
        lv0 = bb.emit_te(topi.nn.dense, x, relax.const(w0))
        lv1 = bb.emit_te(topi.add, lv0, relax.const(b0))
        lv2 = bb.emit_te(topi.nn.relu, lv1)
        lv3 = bb.emit_te(topi.nn.dense, lv2, relax.const(w1))
        out = bb.emit_output(bb.emit_te(topi.add, lv3, relax.const(b1)))
    bb.emit_func_output(out)
MLPTE = bb.get()
fuse = tvm.transform.Sequential([
    relax.transform.AnnotateTIROpPattern(),
    relax.transform.FuseOps(),
    relax.transform.FuseTIR(),
])
MLPFused = fuse(MLPTE)
MLPFused["main"].show()

sch = tvm.tir.Schedule(MLPFused["fused_dense_add_relu"])
block = sch.get_block("T_matmul_NT")
i, j, k = sch.get_loops(block)
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(j0, k, j1)
sch.mod.show()
MLPFused.update_func(MLPFused.get_global_var("fused_dense_add_relu"), sch.mod["main"])

ex = relax.build(MLPFused, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
images_nd = tvm.nd.array(images)
fused_logits = vm["main"](images_nd).numpy()
fused_pred = [int(p) for p in np.argmax(fused_logits, axis=1)]
print("fused + scheduled predictions:", fused_pred)
print("same classes as NumPy:", fused_pred == numpy_pred)
print("logits close to NumPy:", np.allclose(fused_logits, numpy_logits, rtol=1e-5, atol=1e-5))
fused_correct = sum(1 for p, l in zip(fused_pred, LABELS) if p == l)
print("accuracy:", fused_correct, "/", n_img, "(NumPy:", numpy_correct, "/", n_img, ")")
timer = vm.time_evaluator("main", tvm.cpu(), number=1, repeat=1)
print("fused MLP time for", n_img, "images (ms):", timer(images_nd).mean * 1000)
