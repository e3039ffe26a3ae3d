# Seed 000 (notebook "Tensor Program Abstraction in Action"), cells In[3]..In[34]: vector add,
# s_tir schedule (split / reorder / parallel), build and run. Then the cells that use tvm.tir.Schedule
# (In[None], which failed in the notebook's TVM) and build the transformed module.
# %%
import tvm
from tvm.ir.module import IRModule
from tvm.script import ir as I
from tvm.script import tir as T
import numpy as np

# %%
@I.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), 
             B: T.Buffer((128,), "float32"), 
             C: T.Buffer((128,), "float32")):
        # extra annotations for the function
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(128):
            with T.sblock("C"):
                # declare a data parallel iterator on spatial domain
                vi = T.axis.spatial(128, i)
                C[vi] = A[vi] + B[vi]

# %%
type(MyModule)

# %%
print(MyModule.script())
# TVM의 IRModule 객체를 Python 스크립트 형태의 문자열로 변환

# %%
MyModule.show()

# %%
from tvm import s_tir
sch = s_tir.Schedule(MyModule)

# %%
print(sch.mod.script())

# %%
block = sch.get_sblock("C") #block C 반환
i, = sch.get_loops(block) #block C의 루프 반환 (for문을 slice할거임)

# %%
i0, i1, i2 = sch.split(i, factors = [None, 4, 4])#for loop를 분할할거임

print(sch.mod.script())

# %%
sch.reorder(i2, i1) #루프 순서 변경

# %%
print(sch.mod.script())

# %%
sch.parallel(i0) #가장 바깥 루프를 병렬화하고 싶으면 
print(sch.mod.script())

# %%
rt_mod = tvm.build(sch.mod, target="llvm")  # The module for CPU backends.
print(type(rt_mod))

# %%
func = rt_mod["main"]

# %%
func

# %%
a = tvm.runtime.tensor(np.arange(128, dtype="float32"))
b = tvm.runtime.tensor(np.ones(128, dtype="float32"))
c = tvm.runtime.tensor(np.zeros(128, dtype="float32"))

# %%
print(a)
print(b)
print(c)

# %%
func(a, b, c)

# %%
a

# %%
print(a)
print(b)
print(c)

# %%
sch.mod.show()

# %%
sch = tvm.tir.Schedule(MyModule)
print(type(sch))

# %%
# Get block by its name
block_c = sch.get_block("C")
# Get loops surronding the block
(i,) = sch.get_loops(block_c)
# Tile the loop nesting.
i_0, i_1, i_2 = sch.split(i, factors=[None, 4, 4])
sch.mod.show()

# %%
sch.reorder(i_0, i_2, i_1)
sch.mod.show()

# %%
sch.mod.show()

# %%
sch.parallel(i_0)
sch.mod.show()

# %%
transformed_mod = tvm.build(sch.mod, target="llvm")  # The module for CPU backends.
transformed_mod["main"](a, b, c)

# %%
print(c)
print(sch.trace)
