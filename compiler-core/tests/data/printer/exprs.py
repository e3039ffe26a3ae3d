# Expressions: precedence, explicit forms for foldable operations, constants
# of every dtype, casts, intrinsics, boolean operators.
from tvm.script import tirx as T

PRINT = "exprs"


@T.prim_func(s_tir=True)
def exprs(
    A: T.Buffer((16,), "float32"),
    I: T.Buffer((16,), "int32"),
    L: T.Buffer((16,), "int64"),
    H: T.Buffer((16,), "float16"),
    D: T.Buffer((16,), "float64"),
    Bo: T.Buffer((16,), "bool"),
    U: T.Buffer((16,), "uint8"),
    n: T.int32,
    x: T.float32,
):
    I[0] = (n + 1) * 2
    I[1] = n * 2 + 1
    I[2] = n - (1 - n)
    I[3] = n - 1 - n
    I[4] = n // 4 % 3
    I[5] = T.truncdiv(n, 4) + T.truncmod(n, 3)
    I[6] = T.min(n, 3) + T.max(n, -3)
    I[7] = n * -1
    I[8] = T.Select(n > 0, n, 0)
    I[9] = T.if_then_else(n > 0 and n < 5, 1, 2)
    I[10] = T.Add(1, 2)
    I[11] = T.Mul(n, 1)
    I[12] = T.FloorDiv(0, n)
    I[13] = n % (n % 3) + n // 3 // 2
    I[14] = 0 - n
    I[15] = T.Sub(n, 0)
    L[0] = T.int64(3)
    L[1] = T.Cast("int64", n) * T.int64(2)
    A[0] = x / T.float32(2) + x * x - x
    A[1] = T.exp(x) + T.sqrt(x) + T.tanh(x) + T.sigmoid(x) + T.log(x)
    A[2] = T.pow(x, T.float32(2)) + T.fabs(x)
    A[3] = T.Cast("float32", I[0]) + T.max(x, T.float32(0))
    A[4] = x - (x - x) + (x + x) - x * (x + x) / (x * x)
    A[5] = T.float32(0.1) * x
    A[6] = T.float32(1e-5) * x
    A[7] = T.Mul(x, T.float32(1))
    A[8] = T.float32(0) - x
    A[9] = T.float32("inf") * x
    H[0] = T.float16(1.5)
    D[0] = T.float64(0.1)
    Bo[0] = T.bool(True)
    Bo[1] = n == 1 and n != 2 or n <= 3 and n >= 4
    Bo[2] = (n < 1 or n > 2) and n < 1
    Bo[3] = not (n < 1 or n > 2)
    Bo[4] = T.LT(1, 2)
    Bo[5] = T.And(T.bool(True), Bo[0])
    Bo[6] = not Bo[0]
    Bo[7] = T.EQ(Bo[1], n < 1)
    U[0] = T.uint8(255)
