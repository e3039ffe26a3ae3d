# The book's MLP (ch. 4.6, ch. 7): its first layer, linear0 (1x784 input,
# 128x784 weight, bias) and relu fused into one function, as FuseOps and
# FuseTIR make it.
@T.prim_func
def main(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"), B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    Y = T.alloc_buffer((1, 128), "float32")
    Yb = T.alloc_buffer((1, 128), "float32")
    for i, j, k in T.grid(1, 128, 784):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
    for i, j in T.grid(1, 128):
        with T.block("bias"):
            vi, vj = T.axis.remap("SS", [i, j])
            Yb[vi, vj] = Y[vi, vj] + B[vj]
    for i, j in T.grid(1, 128):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = T.max(Yb[vi, vj], T.float32(0))
