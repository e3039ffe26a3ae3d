import numpy as np
class Temp:
    def __init__(self):
        self._c = 0.0
    @property
    def c(self):
        return self._c
    @c.setter
    def c(self, v):
        if v < -273.15:
            raise ValueError("too cold")
        self._c = v
    @classmethod
    def make(cls, v):
        t = cls()
        t.c = v
        return t
    @staticmethod
    def unit():
        return "C"
t = Temp.make(21.5)
print(t.c, Temp.unit(), t.unit())
try:
    t.c = -300
except ValueError as e:
    print("error:", e)
print(type(3) is int, type(True) is bool, isinstance(np.float64(1), float), isinstance(np.float32(1), float), isinstance(np.int64(1), int))
print(int(" 42 "), float(" 1.5\n"), str(None), repr(None), int(True), float(False), str(1e100), complex is not None if False else "skip")
print("{:<10}|{:^10.3f}|{:>+10.2e}|".format("left", 3.14159, 12345.678), "{:%}".format(0.25), "{:.1%}".format(1/3))
print("%(x)05.1f %(y)s" % {"x": 2.345, "y": [1]}, "%3d|%-3d|%03d" % (5, 5, 5), "%.0f %.0f %.0f" % (0.5, 1.5, 2.5))
d = {}
for word in "the cat the dog the end".split():
    d[word] = d.get(word, 0) + 1
print(d, sorted(d.items(), key=lambda kv: (-kv[1], kv[0])), max(d, key=d.get))
stack = []
for ch in "(a[b]{c})":
    if ch in "([{":
        stack.append(ch)
    elif ch in ")]}":
        stack.pop()
print(stack == [], len(stack))
def accumulate(xs, total=0):
    out = []
    for x in xs:
        total += x
        out.append(total)
    return out
print(accumulate([1, 2, 3]), accumulate([1], 10))
matrix = [[1, 2, 3], [4, 5, 6]]
print([[row[i] for row in matrix] for i in range(3)], sum(sum(r) for r in matrix), [x for r in matrix for x in r if x % 2])
print(divmod(17, 5), pow(3, 4), abs(-7.5), round(-1.5), round(2.5), round(1.05, 1), max([], default=None), min(3, 1, 2, key=lambda v: -v))
a = np.arange(6).reshape(2, 3)
b = a.astype("float64") / 4
print(b, b.dtype, b.round(1), np.round(b, 2), b.sum(axis=1), b.max(axis=0), b.min(), b.argmin(), np.clip(b, 0.3, 1.0))
print(a.tolist(), a.T.tolist(), a.flatten(), a.ravel().shape, a.reshape(3, -1), a.sum(keepdims=True) if False else a.sum())
print(np.zeros(3, dtype="int32") + 1.5, (np.arange(4) * 0.5).dtype, np.arange(3, dtype="float32").dtype, np.array([1, 2], dtype="float32") + np.array([1.0, 2.0]))
