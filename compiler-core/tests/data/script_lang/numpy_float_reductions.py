# Float reductions round as NumPy's do: float32 sums pairwise in float32
# along a contiguous run, row by row across rows; mean, var and std in the
# array's precision; dtype= accumulates in the type asked for.
import numpy as np

a = np.arange(100000, dtype="float32") * np.float32(0.001)
print(a.sum(), np.sum(a), a.mean(), np.mean(a))
b = a.reshape(100, 1000)
print(b.sum(axis=1)[:3], b.sum(axis=0)[:3], b.mean(axis=1)[:2], b.mean(axis=0)[:2])
print(b.sum(), b.sum(axis=-1, keepdims=True).shape)
c = np.full(1000001, 0.1, dtype="float32")
print(c.sum(), c.mean(), c.sum(dtype="float64"), np.sum(c, dtype="float64"))
print(c.mean(dtype="float64"), np.mean(c, dtype=np.float64))
for n in [1, 7, 8, 9, 127, 128, 129, 300, 1025]:
    v = (np.arange(n, dtype="float32") * np.float32(0.1)) ** 2
    print(n, v.sum(), v.mean(), v.std(), v.var())
d = np.arange(60, dtype="float32").reshape(3, 4, 5) / np.float32(7)
print(d.sum(axis=1), d.sum(axis=0)[0], d.mean(axis=2)[1])
e = np.arange(1000, dtype="float64") * 0.1
print(e.sum(), e.mean(), e.std())
print(np.sum(np.array([-0.0], dtype="float32")), np.array([], dtype="float32").sum())
