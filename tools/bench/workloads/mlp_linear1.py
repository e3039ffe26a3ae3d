# The book's MLP (ch. 4.6, ch. 7): its second layer, linear1 (1x128 input,
# 10x128 weight, bias) as one fused function.
@T.prim_func
def main(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"), B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    Y = T.alloc_buffer((1, 10), "float32")
    for i, j, k in T.grid(1, 10, 128):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
    for i, j in T.grid(1, 10):
        with T.block("bias"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] + B[vj]
