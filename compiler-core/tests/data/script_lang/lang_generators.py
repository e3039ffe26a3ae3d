def count_up(n):
    i = 0
    while i < n:
        yield i
        i += 1
print(list(count_up(5)), sum(count_up(10)), [x * 2 for x in count_up(3)])
def pairs(items):
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            yield (a, b)
print(list(pairs("abc")))
def chained():
    yield from range(3)
    yield from ["x", "y"]
    return "ignored"
print(list(chained()))
g = count_up(3)
print(next(g), next(g), next(g), next(g, "done"))
def evens():
    for x in range(10):
        if x % 2:
            continue
        yield x
print(max(evens()), sorted(evens(), reverse=True), dict(zip(evens(), "abcde")))
it = iter([1, 2, 3])
print(next(it), list(it), list(it))
print(list(map(lambda x: x + 1, count_up(3))), list(filter(lambda x: x > 1, count_up(4))), any(x > 3 for x in count_up(5)))
