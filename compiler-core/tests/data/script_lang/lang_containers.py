l = [3, 1, 2]
l.append(4); l.extend([5, 6]); l.insert(0, 0)
print(l, l.pop(), l.pop(0), l, l.index(2), l.count(1))
l.sort(); print(l); l.reverse(); print(l); l.remove(3); print(l)
print(sorted(l), sorted(l, key=lambda v: -v), list(reversed(l)), l[1:3], l[::-1])
l[1:3] = [9, 9, 9]; print(l); del l[0]; print(l)
t = (1, 2, 3)
print(t, t[1], t[-1], t[:2], len(t), t + (4,), t * 2, (5,), ())
d = {"b": 2, "a": 1}
d["c"] = 3
print(d, d.get("z"), d.get("z", 0), list(d.keys()), list(d.values()), "a" in d, len(d))
print(d.keys(), d.items())
print(d.pop("b"), d, d.setdefault("e", 5), d)
for k, v in d.items():
    print(k, v)
d2 = dict(x=1, y=2); d2.update({"z": 3}); print(d2, dict([(1, 2), (3, 4)]))
s = {3, 1, 2}
s.add(4); s.discard(10)
print(sorted(s), 2 in s, len(s), {1, 2} | {3}, {1, 2} & {2, 3}, {1, 2} - {2})
print([x * x for x in range(5)], [x for x in range(10) if x % 3 == 0], [(i, j) for i in range(2) for j in range(2)])
print({x: x * 2 for x in range(3)}, {x % 3 for x in range(10)}, sum(x for x in range(5)))
print(list(zip([1, 2, 3], "ab")), list(enumerate("ab", 1)), list(map(str, [1, 2])), list(filter(None, [0, 1, 2])))
print(any([0, 0, 1]), all([1, 1, 0]), list(range(10, 0, -3)), range(5), list(range(0)))
a, b = 1, 2
a, b = b, a
print(a, b)
(c, d), e = (1, 2), 3
print(c, d, e)
first, *rest = [1, 2, 3, 4]
*init, last = [1, 2, 3, 4]
print(first, rest, init, last)
i, = [7]
print(i)
nested = [[1, 2], [3, 4]]
print(nested[1][0], [row[1] for row in nested], [[r[j] for r in nested] for j in range(2)])
m = [[0] * 3 for _ in range(2)]; m[0][1] = 5; print(m)
print(min([(2, "b"), (1, "z")]), max("abc"), sorted(["b", "A", "a"]), sorted({"x": 1, "a": 2}))
print(list("abc"), tuple([1, 2]), set([1, 1, 2]), dict(zip("ab", [1, 2])))
print([1, 2, 3].index(2), (1, 2, 1).count(1), [] == [], [1] * 0, [None] * 2)
