"""The whole-model benchmark's four models, with seeded random weights.

    python tools/models/make_models.py OUT_DIR [--seed N] [--only NAME,...]

Writes, for each of `mlp` (the course MLP, 784 -> 128 -> 10 with ReLU),
`mnist` (the ONNX model zoo's mnist-8 architecture), `squeezenet1_1` and
`mobilenetv2` (1.0, 224 x 224):

    OUT_DIR/NAME/model.onnx       standard ONNX (opset 13, NCHW)
    OUT_DIR/NAME/input.bin        the fixed input, f32 little-endian, NCHW
    OUT_DIR/NAME/input_nhwc.bin   the same input in NHWC (for TF.js)
    OUT_DIR/NAME/golden.bin       onnxruntime's (CPU) output for it, f32
    OUT_DIR/NAME/tfjs.json        the same network as a list of TF.js ops
    OUT_DIR/NAME/tfjs.bin         ... and their weights, f32, NHWC / HWIO
    OUT_DIR/manifest.json         shapes, sizes and tool versions

There is no model download here, so the weights are random (He-scaled so
that activations stay of order one). The graphs are what exporters write
for the real models: mnist-8's Conv (auto_pad SAME_UPPER, no bias) + Add
bias, MaxPool, Reshape, MatMul + Add; torchvision SqueezeNet 1.1 (no
BatchNormalization in that model; Concat in the fire modules, MaxPool with
ceil_mode, GlobalAveragePool, Flatten); torchvision MobileNetV2 exported
without folding (Conv without bias, BatchNormalization, Clip(0, 6) for
ReLU6, the residual Add, GlobalAveragePool, Flatten, Gemm).

The TF.js side is the network as TF.js's own converter ships it: each
BatchNormalization folded into its convolution's weights and bias, bias
and activation fused into the convolution (`tf.fused.conv2d`), filters in
HWIO (depthwise: H W C 1), activations NHWC. It computes the same function
up to float rounding, which the browser run checks against golden.bin.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
BN_EPSILON = 1e-5


class Net:
    """Builds one network twice: ONNX nodes (NCHW) and TF.js steps (NHWC)."""

    def __init__(self, name, rng):
        self.name = name
        self.rng = rng
        self.nodes = []
        self.initializers = []
        self.steps = []
        self.tfjs_weights = {}
        self.shapes = {}
        self.counter = 0
        self.clip_bounds = None

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}_{self.counter}"

    def constant(self, prefix, array):
        name = self.fresh(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def tfjs_weight(self, prefix, array):
        name = self.fresh("tf_" + prefix)
        self.tfjs_weights[name] = np.ascontiguousarray(array, dtype=np.float32)
        return name

    def he(self, shape, fan_in):
        return (self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def input(self, shape):
        self.input_shape = list(shape)
        self.shapes["input"] = list(shape)
        return "input"

    def conv(self, x, cout, k, stride=1, pad=0, groups=1, bias="conv", bn=False, act=None):
        """Conv (+ bias) (+ BatchNormalization) (+ Relu / Clip(0, 6)).

        `bias` is "conv" (the Conv's B input), "add" (a separate Add of a
        [C, 1, 1] constant, as mnist-8 has it) or None; `pad` is an int
        (symmetric) or "same_upper" (mnist-8's auto_pad).
        """
        n, cin, h, w = self.shapes[x]
        fan_in = cin // groups * k * k
        weight = self.he((cout, cin // groups, k, k), fan_in)
        b = (self.rng.standard_normal(cout) * 0.05).astype(np.float32) if bias else None
        y = self.fresh("conv")
        attrs = {"kernel_shape": [k, k], "strides": [stride, stride], "group": groups}
        if pad == "same_upper":
            assert stride == 1 and k % 2 == 1
            attrs["auto_pad"] = "SAME_UPPER"
            p = k // 2
        else:
            attrs["pads"] = [pad] * 4
            p = pad
        inputs = [x, self.constant("W", weight)]
        if bias == "conv":
            inputs.append(self.constant("B", b))
        self.nodes.append(helper.make_node("Conv", inputs, [y], name=y, **attrs))
        oh, ow = (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
        self.shapes[y] = [n, cout, oh, ow]
        if bias == "add":
            y = self.binary("Add", y, self.constant("B", b.reshape(cout, 1, 1)), [n, cout, oh, ow])
        folded_w, folded_b = weight, b if b is not None else np.zeros(cout, np.float32)
        if bn:
            gamma = self.rng.uniform(0.8, 1.2, cout).astype(np.float32)
            beta = (self.rng.standard_normal(cout) * 0.1).astype(np.float32)
            mean = (self.rng.standard_normal(cout) * 0.1).astype(np.float32)
            var = self.rng.uniform(0.5, 1.5, cout).astype(np.float32)
            names = [self.constant(p_, v) for p_, v in
                     [("bn_scale", gamma), ("bn_bias", beta), ("bn_mean", mean), ("bn_var", var)]]
            z = self.fresh("bn")
            self.nodes.append(helper.make_node(
                "BatchNormalization", [y] + names, [z], name=z, epsilon=BN_EPSILON))
            self.shapes[z] = self.shapes[y]
            y = z
            scale = gamma / np.sqrt(var + BN_EPSILON)
            folded_w = weight * scale[:, None, None, None]
            folded_b = (folded_b - mean) * scale + beta
        y = self.activation(y, act)
        depthwise = groups > 1
        if depthwise:
            assert groups == cin == cout, "only depthwise grouping is used"
            tf_filter = folded_w[:, 0, :, :].transpose(1, 2, 0)[..., None]
        else:
            tf_filter = folded_w.transpose(2, 3, 1, 0)
        self.steps.append({
            "op": "conv", "x": x, "y": y, "depthwise": depthwise,
            "filter": self.tfjs_weight("filter", tf_filter),
            "bias": self.tfjs_weight("bias", folded_b),
            "strides": stride, "pad": p, "activation": act or "linear",
        })
        return y

    def activation(self, x, act):
        if act is None:
            return x
        y = self.fresh(act)
        if act == "relu":
            self.nodes.append(helper.make_node("Relu", [x], [y], name=y))
        elif act == "relu6":
            if self.clip_bounds is None:
                self.clip_bounds = (self.constant("clip_min", np.array(0.0, np.float32)),
                                    self.constant("clip_max", np.array(6.0, np.float32)))
            self.nodes.append(helper.make_node("Clip", [x, *self.clip_bounds], [y], name=y))
        else:
            raise ValueError(f"unknown activation {act}")
        self.shapes[y] = self.shapes[x]
        return y

    def binary(self, op, a, b, shape):
        y = self.fresh(op.lower())
        self.nodes.append(helper.make_node(op, [a, b], [y], name=y))
        self.shapes[y] = shape
        return y

    def maxpool(self, x, k, stride, ceil_mode=False):
        n, c, h, w = self.shapes[x]
        y = self.fresh("maxpool")
        attrs = {"kernel_shape": [k, k], "strides": [stride, stride]}
        if ceil_mode:
            attrs["ceil_mode"] = 1
            # TF.js pools without ceil mode: only sizes where both agree.
            assert (h - k) % stride == 0 and (w - k) % stride == 0, (h, w, k, stride)
        self.nodes.append(helper.make_node("MaxPool", [x], [y], name=y, **attrs))
        self.shapes[y] = [n, c, (h - k) // stride + 1, (w - k) // stride + 1]
        self.steps.append({"op": "maxpool", "x": x, "y": y, "size": k, "strides": stride})
        return y

    def concat(self, xs):
        y = self.fresh("concat")
        self.nodes.append(helper.make_node("Concat", xs, [y], name=y, axis=1))
        first = self.shapes[xs[0]]
        self.shapes[y] = [first[0], sum(self.shapes[v][1] for v in xs), first[2], first[3]]
        self.steps.append({"op": "concat", "xs": xs, "y": y})
        return y

    def residual(self, a, b):
        y = self.binary("Add", a, b, self.shapes[a])
        self.steps.append({"op": "add", "a": a, "b": b, "y": y})
        return y

    def global_avgpool_flatten(self, x):
        n, c, _, _ = self.shapes[x]
        pooled = self.fresh("gap")
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], [pooled], name=pooled))
        self.shapes[pooled] = [n, c, 1, 1]
        y = self.fresh("flatten")
        self.nodes.append(helper.make_node("Flatten", [pooled], [y], name=y, axis=1))
        self.shapes[y] = [n, c]
        self.steps.append({"op": "mean_hw", "x": x, "y": y})
        return y

    def reshape_flatten(self, x):
        """mnist-8's Reshape to [1, C*H*W]: NCHW order, so the TF.js dense
        weights after it are permuted from (c, h, w) rows to (h, w, c)."""
        n, c, h, w = self.shapes[x]
        y = self.fresh("reshape")
        shape = self.constant("shape", np.array([n, c * h * w], np.int64))
        self.nodes.append(helper.make_node("Reshape", [x, shape], [y], name=y))
        self.shapes[y] = [n, c * h * w]
        self.steps.append({"op": "flatten", "x": x, "y": y})
        self.pending_row_order = (c, h, w)
        return y

    def dense(self, x, out, act=None, style="gemm"):
        """Gemm(transB=1) as torch exports it, or mnist-8's MatMul + Add."""
        n, fan_in = self.shapes[x]
        weight = self.he((out, fan_in), fan_in)
        b = (self.rng.standard_normal(out) * 0.05).astype(np.float32)
        if style == "gemm":
            y = self.fresh("gemm")
            self.nodes.append(helper.make_node(
                "Gemm", [x, self.constant("W", weight), self.constant("B", b)], [y],
                name=y, transB=1))
            self.shapes[y] = [n, out]
        else:
            y = self.binary("MatMul", x, self.constant("W", weight.T.copy()), [n, out])
            y = self.binary("Add", y, self.constant("B", b.reshape(1, out)), [n, out])
        y = self.activation(y, act)
        tf_weight = weight.T  # [in, out]
        row_order = getattr(self, "pending_row_order", None)
        if row_order is not None:
            c, h, w = row_order
            tf_weight = tf_weight.reshape(c, h, w, out).transpose(1, 2, 0, 3).reshape(fan_in, out)
            self.pending_row_order = None
        self.steps.append({
            "op": "dense", "x": x, "y": y,
            "weight": self.tfjs_weight("dense_w", tf_weight),
            "bias": self.tfjs_weight("dense_b", b), "activation": act or "linear",
        })
        return y

    def finish(self, output):
        self.output = output
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, self.input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, self.shapes[output])],
            self.initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="tessel-make-models")
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def mlp(rng):
    net = Net("mlp", rng)
    x = net.input([1, 784])
    x = net.dense(x, 128, act="relu")
    return net, net.dense(x, 10)


def mnist(rng):
    net = Net("mnist", rng)
    x = net.input([1, 1, 28, 28])
    x = net.conv(x, 8, 5, pad="same_upper", bias="add", act="relu")
    x = net.maxpool(x, 2, 2)
    x = net.conv(x, 16, 5, pad="same_upper", bias="add", act="relu")
    x = net.maxpool(x, 3, 3)
    x = net.reshape_flatten(x)
    return net, net.dense(x, 10, style="matmul")


def squeezenet1_1(rng):
    net = Net("squeezenet1_1", rng)
    x = net.input([1, 3, 224, 224])
    x = net.conv(x, 64, 3, stride=2, act="relu")
    x = net.maxpool(x, 3, 2, ceil_mode=True)

    def fire(x, squeeze, expand):
        s = net.conv(x, squeeze, 1, act="relu")
        e1 = net.conv(s, expand, 1, act="relu")
        e3 = net.conv(s, expand, 3, pad=1, act="relu")
        return net.concat([e1, e3])

    x = fire(x, 16, 64)
    x = fire(x, 16, 64)
    x = net.maxpool(x, 3, 2, ceil_mode=True)
    x = fire(x, 32, 128)
    x = fire(x, 32, 128)
    x = net.maxpool(x, 3, 2, ceil_mode=True)
    x = fire(x, 48, 192)
    x = fire(x, 48, 192)
    x = fire(x, 64, 256)
    x = fire(x, 64, 256)
    x = net.conv(x, 1000, 1, act="relu")
    return net, net.global_avgpool_flatten(x)


def mobilenetv2(rng):
    net = Net("mobilenetv2", rng)
    x = net.input([1, 3, 224, 224])
    x = net.conv(x, 32, 3, stride=2, pad=1, bias=None, bn=True, act="relu6")
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x
            if t != 1:
                y = net.conv(y, hidden, 1, bias=None, bn=True, act="relu6")
            y = net.conv(y, hidden, 3, stride=stride, pad=1, groups=hidden, bias=None,
                         bn=True, act="relu6")
            y = net.conv(y, c, 1, bias=None, bn=True)
            x = net.residual(x, y) if stride == 1 and cin == c else y
            cin = c
    x = net.conv(x, 1280, 1, bias=None, bn=True, act="relu6")
    x = net.global_avgpool_flatten(x)
    return net, net.dense(x, 1000)


MODELS = {
    "mlp": ("MLP 784-128-10", mlp),
    "mnist": ("MNIST CNN (mnist-8)", mnist),
    "squeezenet1_1": ("SqueezeNet 1.1", squeezenet1_1),
    "mobilenetv2": ("MobileNetV2 1.0 224", mobilenetv2),
}


def write_f32(path, array):
    np.ascontiguousarray(array, dtype="<f4").tofile(path)


def make(out_dir, name, seed):
    import onnxruntime as ort

    label, build = MODELS[name]
    # One stream per model, so that models do not change when others do.
    rng = np.random.default_rng([seed, list(MODELS).index(name)])
    net, output = build(rng)
    model = net.finish(output)
    model_dir = os.path.join(out_dir, name)
    os.makedirs(model_dir, exist_ok=True)
    onnx_path = os.path.join(model_dir, "model.onnx")
    onnx.save(model, onnx_path)

    shape = net.input_shape
    if len(shape) == 4:
        x = rng.standard_normal(shape).astype(np.float32)
        x_nhwc = x.transpose(0, 2, 3, 1)
    else:
        x = rng.uniform(0.0, 1.0, shape).astype(np.float32)
        x_nhwc = x
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    (golden,) = session.run(None, {"input": x})
    if not np.all(np.isfinite(golden)):
        raise SystemExit(f"{name}: onnxruntime's output is not finite")
    write_f32(os.path.join(model_dir, "input.bin"), x)
    write_f32(os.path.join(model_dir, "input_nhwc.bin"), x_nhwc)
    write_f32(os.path.join(model_dir, "golden.bin"), golden)

    weights, offset = [], 0
    with open(os.path.join(model_dir, "tfjs.bin"), "wb") as blob:
        for wname, array in net.tfjs_weights.items():
            data = array.astype("<f4").tobytes()
            weights.append({"name": wname, "shape": list(array.shape), "offset": offset})
            blob.write(data)
            offset += len(data)
    tf_input = list(x_nhwc.shape)
    with open(os.path.join(model_dir, "tfjs.json"), "w") as f:
        json.dump({"input": {"name": "input", "shape": tf_input}, "output": output,
                   "weights": weights, "steps": net.steps}, f, indent=1)
    params = sum(int(np.prod(i.dims)) for i in model.graph.initializer)
    return {
        "name": name, "label": label, "input_shape": shape, "tfjs_input_shape": tf_input,
        "output_shape": list(golden.shape), "params": params,
        "onnx_bytes": os.path.getsize(onnx_path), "onnx_nodes": len(model.graph.node),
        "golden_max_abs": float(np.abs(golden).max()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--only", default=",".join(MODELS),
                        help="comma-separated subset of " + ", ".join(MODELS))
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {unknown}; known: {list(MODELS)}")
    import onnxruntime

    os.makedirs(args.out_dir, exist_ok=True)
    entries = []
    for name in names:
        entry = make(args.out_dir, name, args.seed)
        entries.append(entry)
        print(f"{name:14} {entry['params']:>9} params, {entry['onnx_nodes']:>3} nodes, "
              f"{entry['onnx_bytes'] / 1e6:6.2f} MB, output {entry['output_shape']}, "
              f"max |golden| {entry['golden_max_abs']:.3g}")
    manifest = {
        "seed": args.seed, "opset": OPSET, "models": entries,
        "versions": {"onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
                     "numpy": np.__version__, "python": sys.version.split()[0]},
    }
    with open(os.path.join(args.out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
