# Primitive case: `tensorize` of a loop with a small intrinsic whose implementation is a vector
# statement (so the interpreter can check the numbers, unlike the book's extern tmm16).
# hand-written: TVM 0.27 segfaults in tensorize (see book_blockize_5_tensorize); the golden is TVM's own blockize(i1) result with the body of block C_o replaced as TVM's Tensorize does (see the note in the .expected.py)
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class VecAdd:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"),
             B: T.Buffer((16,), "float32"),
             C: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                C[vi] = A[vi] + B[vi]

# --- tensor-intrin: vadd4 ---

@T.prim_func
def vadd4_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (4,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        for i in range(4):
            with T.block("vadd"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]

@T.prim_func
def vadd4_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (4,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        C[0:4] = A[T.Ramp(0, 1, 4)] + B[T.Ramp(0, 1, 4)]
# --- schedule ---
block = sch.get_block("C")
i, = sch.get_loops(block)
i0, i1 = sch.split(i, factors=[None, 4])
sch.tensorize(i1, "vadd4")
