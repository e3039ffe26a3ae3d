import numpy as np
np.random.seed(0)
print(np.random.rand(3))
print(np.random.randn(2, 2))
print(np.random.uniform(-1, 1, size=3))
print(np.random.randint(0, 10, size=5))
print(np.random.rand())
np.random.seed(42)
x = np.random.rand(128, 128).astype("float32")
print(x[0, :4], x.sum(), x.mean())
a = np.arange(16).reshape(4, 4)
b = a.copy(); b[1, 2] = 3
try:
    np.testing.assert_allclose(a, b, rtol=1e-5)
except AssertionError as e:
    print(str(e))
f = np.arange(6, dtype="float32").reshape(2, 3)
g = f.copy(); g[0, 1] += 1e-3; g[1, 2] = 0
try:
    np.testing.assert_allclose(f, g, rtol=1e-5, atol=1e-7)
except AssertionError as e:
    print(str(e))
try:
    np.testing.assert_allclose(np.zeros(3), np.zeros(4))
except AssertionError as e:
    print(str(e))
np.testing.assert_allclose(f + 1, f + 1 + 1e-9, rtol=1e-5)
print("ok")
big = np.zeros((20, 30))
big2 = big.copy(); big2[:, 3] = 1
try:
    np.testing.assert_allclose(big, big2)
except AssertionError as e:
    print(str(e))
try:
    np.testing.assert_array_equal(np.array([1, 2, 3]), np.array([1, 2, 4]))
except AssertionError as e:
    print(str(e))
