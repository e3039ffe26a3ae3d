# A notebook: each cell's last expression is displayed.
# %%
x = 3
x * 2
# %%
def f():
    return None
f()
# %%
type(x)
# %%
type(3.5), [1, 2], {"a": (1, 2)}
# %%
"a string"
# %%
import numpy as np
np.arange(3)
# %%
np.float32(2.5)
# %%
class Point:
    def __init__(self, x):
        self.x = x
    def __repr__(self):
        return f"Point({self.x})"
Point(4)
# %%
type(Point(1))
# %%
import IPython
IPython.display.Code("def hello():\n    return 1", language="python")
# %%
display(1, "two", [3])
y = 5
# %%
%pip install something
!ls -la
print("magics are skipped", y)
# %%
print(undefined_in_notebook)
# %%
print("not reached")
