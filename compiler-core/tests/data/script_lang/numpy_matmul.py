# `@` and np.matmul: 2-D, 1-D operands, batched and broadcast batch axes,
# integers, and a larger product.
import numpy as np

a = np.arange(6, dtype="float32").reshape(2, 3)
b = np.arange(12, dtype="float32").reshape(3, 4)
print(a @ b)
print(np.matmul(a, b).dtype, (a @ b).shape)

v = np.array([1.0, 2.0, 3.0], dtype="float32")
print(v @ b)
print(a @ v)
print(v @ v)

x = np.arange(24, dtype="float32").reshape(2, 3, 4)
y = np.arange(40, dtype="float32").reshape(2, 4, 5)
z = x @ y
print(z.shape)
print(z[1])

w = np.arange(20, dtype="float32").reshape(4, 5)
print((x @ w).shape, np.array_equal((x @ w)[0], x[0] @ w))
q = np.arange(8, dtype="float32").reshape(1, 2, 4)
r = np.arange(24, dtype="float32").reshape(3, 4, 2)
print((q @ r).shape)
print((q @ r)[2])

i = np.arange(6, dtype="int64").reshape(3, 2)
j = np.arange(4, dtype="int64").reshape(2, 2)
print(i @ j, (i @ j).dtype)

try:
    a @ a
except ValueError as e:
    print("ValueError:", e)

n = 256
big_a = np.ones((n, n), dtype="float32")
big_b = np.full((n, n), 0.5, dtype="float32")
c = big_a @ big_b
print(c.shape, c[0, 0], c[n - 1, n - 1])
c2 = big_a @ big_b.T
print(float(c2.sum()))
