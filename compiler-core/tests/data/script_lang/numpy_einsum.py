# np.einsum in the forms the course's formulas use: matmul, batched matmul,
# transposes, sums, outer and inner products, diagonals and traces, implicit
# output, integers, and the errors a wrong call gets.
import numpy as np

a = np.arange(6, dtype="float32").reshape(2, 3)
b = np.arange(12, dtype="float32").reshape(3, 4) / 7
print(np.einsum("ij,jk->ik", a, b))
print(np.einsum("ij,jk->ik", a, b).dtype)
print(np.allclose(np.einsum("ij,jk->ik", a, b), a @ b))
print(np.einsum("ij,jk", a, b).shape)
print(np.einsum("ij->ji", a))
print(np.einsum("ij->", a), np.einsum("ij->j", a), np.einsum("ij->i", a))
x = np.arange(24, dtype="float64").reshape(2, 3, 4)
y = np.arange(40, dtype="float64").reshape(2, 4, 5) / 3
print(np.einsum("bij,bjk->bik", x, y).shape)
print(np.allclose(np.einsum("bij,bjk->bik", x, y), x @ y))
# The course's linear layer: Y = X W^T + b written as a formula.
X = np.arange(8, dtype="float32").reshape(2, 4)
W = np.arange(12, dtype="float32").reshape(3, 4)
print(np.einsum("ik,jk->ij", X, W))
u = np.array([1, 2, 3])
v = np.array([4, 5])
print(np.einsum("i,j->ij", u, v), np.einsum("i,j->ij", u, v).dtype)
print(np.einsum("i,i->", u, u), np.einsum("i,i", u, u))
sq = np.arange(9).reshape(3, 3)
print(np.einsum("ii->i", sq), np.einsum("ii", sq))
print(np.einsum(" ij , jk -> ik ", a, b).shape)
for bad in [("ij,jk->ik", a, a), ("ij->ik", a), ("ij,jk->ik", a), ("ij->ii", a)]:
    try:
        np.einsum(*bad)
    except ValueError as e:
        print("ValueError")
