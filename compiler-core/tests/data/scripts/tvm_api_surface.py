# The tvm API surface scripts use beyond the course's main cells: module and function objects,
# structural equality, schedule errors and handles, build targets, devices, tensors.
# tessel-test: mask-after mean=
# %%
import numpy as np
import tvm
from tvm import s_tir
from tvm.script import ir as I
from tvm.script import tir as T

@T.prim_func
def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)

@I.ir_module
class Two:
    @T.prim_func
    def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("F"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func
    def g(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("G"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] - T.float32(3)

# %%
print(type(add_one))
print(add_one.script())
mod = tvm.IRModule({"main": add_one})
print(type(mod), len(mod.get_global_vars()))
print(mod.get_global_var("main"))
print(mod["main"].attrs["global_symbol"])
renamed = add_one.with_attr("global_symbol", "renamed")
print(renamed.script())
print(tvm.IRModule.from_expr(add_one).get_global_vars())

# %%
tvm.ir.assert_structural_equal(mod["main"], add_one)
print("equal")
try:
    tvm.ir.assert_structural_equal(Two["f"], Two["g"])
except ValueError as e:
    print(type(e).__name__, str(e).splitlines()[0].split(",")[0])

# %%
mod2 = tvm.IRModule({"main": add_one})
mod2.update_func(mod2.get_global_var("main"), Two["f"].with_attr("global_symbol", "main"))
print(mod2.script())
print("main" in [gv.name_hint for gv in mod2.get_global_vars()])

# %%
sch = s_tir.Schedule(Two)
try:
    sch.get_sblock("F")
except Exception as e:
    print(type(e).__name__, "|", type(e).__mro__[1].__name__, "|", str(e).splitlines()[0])
sch.work_on("f")
b = sch.get_sblock("F")
print(b, type(b).__name__)
(l,) = sch.get_loops(b)
print(l)
try:
    sch.vectorize(b)
except Exception as e:
    print(type(e).__name__)
v = sch.sample_perfect_tile(l, n=2, decision=[4, 4])
print(sch.get(v[0]), sch.get(v[1]))
lo, li = sch.split(l, factors=v)
sch2 = sch.copy()
sch2.unroll(li)
print(sch.trace)
print(sch2.trace)
print(sch2.mod.script())
try:
    sch.split(l, factors=[2, 8])
except Exception as e:
    print("stale loop:", type(e).__name__, e)

# %%
sch = s_tir.Schedule(add_one)
print(sch.mod.script())

# %%
for target in ["llvm", "c", {"kind": "llvm"}, tvm.target.Target("llvm")]:
    lib = tvm.compile(Two, target=target)
    x = tvm.runtime.tensor(np.arange(16, dtype="float32"))
    y = tvm.runtime.empty((16,), "float32")
    lib["g"](x, y)
    print(y.numpy()[:4], type(lib).__name__)

# %%
dev = tvm.cpu(0)
print(dev, repr(dev), dev.type, dev.index, dev.dlpack_device_type(), dev.exist, tvm.device("cpu", 0) == dev, tvm.device("llvm", 0))
t = tvm.runtime.tensor(np.ones((2, 3), dtype="float32"), dev)
print(t.shape, t.dtype, t.device, type(t).__name__)
t.copyfrom(np.full((2, 3), 7, dtype="float32"))
print(t)
print(repr(t))
print(t.numpy().sum(), type(t.numpy()))

# %%
lib = tvm.build(add_one, target="llvm")
a = tvm.runtime.tensor(np.arange(8, dtype="float32"))
b = tvm.runtime.empty((8,), "float32")
timer = lib.time_evaluator(lib.entry_name, dev, number=3, repeat=2)
res = timer(a, b)
print(len(res.results), res.mean >= 0, type(res).__name__)
print(b)

# %%
# TVMScript reads Python values of the enclosing script, like TVM's parser.
n = 16
dtype = "float32"
alpha = 2.5
shape = (4, 4)

@T.prim_func
def scale(A: T.Buffer((n,), dtype), B: T.Buffer(shape, dtype)):
    for i, j in T.grid(shape[0], shape[1]):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi * 4 + vj] * alpha

print(scale.script())
lib = tvm.build(scale, target="llvm")
x = tvm.runtime.tensor(np.arange(16, dtype="float32"))
y = tvm.runtime.empty((4, 4), "float32")
lib["scale"](x, y)
print(y)

# %%
try:
    @T.prim_func
    def broken(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("A"):
                vi = T.axis.spatial(4, i)
                A[vi] = D[vi]
except Exception as e:
    print(type(e).__name__, type(e).__mro__[1].__name__)
