# Softmax over the rows of a 256x1024 matrix, as TE/topi writes it: row
# maximum, exponentials, their sum, normalization.
@T.prim_func
def main(A: T.Buffer((256, 1024), "float32"), B: T.Buffer((256, 1024), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    maxelem = T.alloc_buffer((256,), "float32")
    expv = T.alloc_buffer((256, 1024), "float32")
    expsum = T.alloc_buffer((256,), "float32")
    for i, k in T.grid(256, 1024):
        with T.block("maxelem"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                maxelem[vi] = T.min_value("float32")
            maxelem[vi] = T.max(maxelem[vi], A[vi, vk])
    for i, j in T.grid(256, 1024):
        with T.block("exp"):
            vi, vj = T.axis.remap("SS", [i, j])
            expv[vi, vj] = T.exp(A[vi, vj] - maxelem[vi])
    for i, k in T.grid(256, 1024):
        with T.block("expsum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                expsum[vi] = T.float32(0)
            expsum[vi] = expsum[vi] + expv[vi, vk]
    for i, j in T.grid(256, 1024):
        with T.block("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = expv[vi, vj] / expsum[vi]
