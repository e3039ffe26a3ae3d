# from tvm.script import tir as T

@T.prim_func
def tmm16_desc(A: T.Buffer((16, 16), "float32", scope="global.A_reg", offset_factor=16), B: T.Buffer((16, 16), "float32", scope="global.B_reg", offset_factor=16), C: T.Buffer((16, 16), "float32", scope="global.accumulator", offset_factor=16)):
    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        for i, j, k in T.grid(16, 16, 16):
            with T.block(""):
                vij, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vij, vjj], A[vij, vkk], B[vjj, vkk])
                T.writes(C[vij, vjj])
                C[vij, vjj] = C[vij, vjj] + A[vij, vkk] * B[vjj, vkk]