import numpy as np
a = np.zeros((3, 4))
a[1][2] = 5
row = a[0]
row[:] = 7
row[1] += 1
for r in a:
    r[3] = -1
col = a[:, 1]
col *= 10
sub = a[1:, 2:]
sub[0, 0] = 9
sub2 = sub[1]
sub2[1] = 42
print(a)
print(row, col, sub, sub2)
b = a[[0, 2]]
b[0, 0] = 100
print(a[0, 0], b[0, 0])
m = a[a > 8]
m[0] = -5
print(a.max(), m)
c = np.arange(12).reshape(3, 4)
v = c[1]
c[1, 0] = 99
print(v, v.sum(), v.shape, v.dtype)
t = c.T
t[0, 0] = -1
print(c[0, 0])
def clear_row(x):
    x[:] = 0
clear_row(c[2])
print(c)
