import numpy as np
print([np.float32(1.5), np.int64(3)], (np.float64(2.0),), {"k": np.float32(0.1)})
print([1.0, 2.5e-8, 1e22], (1,), [(1, 2), [3]], {1: {2: [3]}}, {(1, 2): "t"}, [None, True, "s'q", 'd"q'])
x = [5, 3, 8, 1]
print(sorted(x, key=lambda v: -v), sorted(["bb", "a", "ccc"], key=len), min(["bb", "a"], key=len))
print([*x, *"ab"], {**{"a": 1}, **{"b": 2, "a": 3}}, list(zip(*[[1, 2, 3], [4, 5, 6]])))
print(list(enumerate(["a", "b"], start=1)), ", ".join(str(v) for v in x), "%s-%s" % ("a", "b"), "%s" % ((1, 2),))
class Node:
    count = 0
    def __init__(self, v):
        self.v = v
        Node.count += 1
    def __hash__(self):
        return hash(self.v)
    def __eq__(self, o):
        return isinstance(o, Node) and o.v == self.v
    def __lt__(self, o):
        return self.v < o.v
    def __repr__(self):
        return f"N{self.v}"
ns = [Node(3), Node(1), Node(2)]
print(sorted(ns), max(ns), {ns[0]: "three"}[ns[0]], Node(1) in ns, Node.count)
try:
    try:
        raise ValueError("first")
    except ValueError as e:
        raise KeyError("second") from e
except KeyError as e:
    print("got", repr(e))
def f():
    try:
        return 1
    finally:
        print("in finally")
print(f())
def g():
    for i in range(3):
        try:
            if i == 1:
                continue
            print("body", i)
        finally:
            print("fin", i)
g()
a = [1, 2, 3, 4, 5]
a[1:3] = ["x"]
a[::2] = [0, 0, 0] if len(a[::2]) == 3 else a[::2]
print(a, a[-2:], a[:-2], a[10:], a[::-2])
print(7 // 2, -7 // 2, 7 % -2, -7 % -2, 2 ** 31, 1e300 * 1e10, float("-inf") < 0, 0.1 + 0.7, round(0.1 + 0.7, 1))
print(f"{0.1 + 0.2:.15g}", f"{1/3:.17g}", f"{2**0.5:10.4f}|", f"{-5:+05d}", f"{3:b}", f"{255:o}", f"{1e-9:.2e}")
s = "The quick brown fox"
print(s.split(" ", 2), s.rsplit(" ", 1), s.lower().count("o"), s.index("q"), s[4:9].upper(), s.replace(" ", "_", 2))
print("a b".split(" "), "".split(","), "a,".split(","), "  x  y ".strip().split(), "abc".find("z"), "x".join("abc"))
print(bool([]), bool([0]), bool({}), bool(0.0), bool(""), None is None)
i = 0
while i < 10:
    i += 3
    if i > 100:
        break
else:
    print("loop ended normally", i)
m = np.array([[1, 2], [3, 4]])
print(m @ np.array([1, 1]), np.array([1, 1]) @ m, m.argmax(axis=1), m.mean(axis=0), m.astype("float32") / 3)
print(np.arange(0.0, 1.0, 0.1), np.arange(5, 0, -1), np.array([1.7, -1.7]).astype("int32"), (m > 1).sum())
print(np.array([[1e-3, 1e4], [5.5, -2.0]]), np.array([-12345, 7]), np.ones((2, 2), dtype="float32") * np.float32(0.1))
print(repr(np.array([0.1, 0.2], dtype="float32") * 3), np.exp(np.array([1.0, 2.0])), np.sqrt(2.0), np.maximum(3, 5))
