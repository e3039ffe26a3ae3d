# float32 arrays with Python floats: NumPy converts the Python float to
# float32 first, so the products are float32 products; and float reprs that
# tie between two shortest candidates round to even, as CPython prints them.
import numpy as np

a = np.arange(1000, dtype="float32") * 0.01
print([float(x) for x in a[::97]])
b = np.arange(1000, dtype="float32") * 0.1 + 0.3
print([float(x) for x in b[::97]])
c = (np.arange(1000, dtype="float32") * 0.37) / 1.3
print([float(x) for x in c[::97]])
d = np.float32(0.1) * 3.3 - 0.7
print(d, float(d), type(d).__name__)
print(float(a.sum()))
print(87.600006103515625, 0.1 + 0.2, 1e16, 2.5e-5)
