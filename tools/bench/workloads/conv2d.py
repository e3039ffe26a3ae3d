# A 3x3 convolution, NCHW, stride 1, zero padding 1: a 1x32x56x56 input,
# 64 output channels (a ResNet-style layer), with its padding as a block.
@T.prim_func
def main(X: T.Buffer((1, 32, 56, 56), "float32"), W: T.Buffer((64, 32, 3, 3), "float32"), Y: T.Buffer((1, 64, 56, 56), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    pad = T.alloc_buffer((1, 32, 58, 58), "float32")
    for n, c, h, w in T.grid(1, 32, 58, 58):
        with T.block("pad"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 57 and 1 <= vw and vw < 57, X[vn, vc, vh - 1, vw - 1], T.float32(0))
    for n, k, h, w, c, r, s in T.grid(1, 64, 56, 56, 32, 3, 3):
        with T.block("conv"):
            vn, vk, vh, vw, vc, vr, vs = T.axis.remap("SSSSRRR", [n, k, h, w, c, r, s])
            with T.init():
                Y[vn, vk, vh, vw] = T.float32(0)
            Y[vn, vk, vh, vw] = Y[vn, vk, vh, vw] + pad[vn, vc, vh + vr, vw + vs] * W[vk, vc, vr, vs]
