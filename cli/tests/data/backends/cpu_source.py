# get_source() of a CPU build: the wasm module's text format (WAT).
import tvm
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.remap("S", [i])
            A[vi] = A[vi] * T.float32(2)

lib = tvm.build(f, target="llvm")
print(lib.get_source()[:7])
print(lib.inspect_source().count("(func"))
