# IR that TVMScript cannot express directly, built with TVM's Python API:
# variables and buffers used without a definition, expression lets, calls as
# statements.
from tvm import tirx

PRINT = "odd"

x = tirx.Var("x", "float32")
w = tirx.Var("w", "float32")
n = tirx.Var("n", "int32")
m = tirx.Var("m", "int32")
k = tirx.Var("k", "int32")
i = tirx.Var("i", "int32")
A = tirx.decl_buffer((8,), "float32", name="A")
body = tirx.SeqStmt(
    [
        tirx.BufferStore(A, tirx.Let(w, x * x, w + w), [0]),
        tirx.Evaluate(n),
        tirx.For(i, 0, k, tirx.ForKind.SERIAL, tirx.SeqStmt([tirx.Evaluate(m), tirx.Evaluate(m + i)])),
        tirx.Evaluate(m),
        tirx.Evaluate(tirx.exp(x)),
        tirx.Evaluate(tirx.if_then_else(n > 0, x, x * x)),
        tirx.Evaluate(0),
    ]
)
odd = tirx.PrimFunc([x, n], body).with_attr("global_symbol", "odd").with_attr("s_tir", True)
