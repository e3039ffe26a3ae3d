def f(a, b=2, *args, c=3, **kw):
    return (a, b, args, c, kw)
print(f(1), f(1, 2, 3, 4, c=5, d=6), f(b=5, a=1))
def make_counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
c = make_counter(); c(); c(); print(c())
adders = [lambda x, i=i: x + i for i in range(3)]
print([g(10) for g in adders])
late = [lambda: i for i in range(3)]
print([g() for g in late])
G = 1
def use_global():
    global G
    G += 1
    return G
print(use_global(), G)
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
print(fact(20))
def fib(n, memo={}):
    if n in memo:
        return memo[n]
    r = n if n < 2 else fib(n - 1) + fib(n - 2)
    memo[n] = r
    return r
print(fib(80))
def kw_only(*, x, y=1):
    return x + y
print(kw_only(x=2))
def unpack(*args, **kwargs):
    return args, kwargs
print(unpack(*[1, 2], **{"a": 3}))
print((lambda *a: sum(a))(1, 2, 3), (lambda: None)())
def doc():
    """Docstring."""
    return doc.__name__
print(doc(), doc.__doc__)
def outer():
    x = "outer"
    def inner():
        return x
    x = "changed"
    return inner()
print(outer())
def gen_list(n):
    out = []
    for i in range(n):
        if i == 2:
            continue
        if i == 5:
            break
        out.append(i)
    else:
        out.append("no break")
    return out
print(gen_list(10), gen_list(4))
i = 0
while i < 3:
    i += 1
else:
    print("while done", i)
def decorator(fn):
    def wrapper(*a, **k):
        return "<" + str(fn(*a, **k)) + ">"
    return wrapper
@decorator
def hello(name):
    return "hi " + name
print(hello("bob"))
print(callable(hello), callable(3), type(hello).__name__, hello.__name__)
x = 5
y = x if x > 3 else -x
print(y, (z := 10), z)
def shadow():
    print(x)
    x = 3
try:
    shadow()
except UnboundLocalError as e:
    print("UnboundLocalError:", e)
print(max(range(10), key=lambda v: (v % 3, v)), sorted([(1, 'b'), (1, 'a')]))
