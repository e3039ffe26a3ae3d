def check(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__ + ":", e)
check(lambda: 1 / 0)
check(lambda: 1 // 0)
check(lambda: 1.0 / 0)
check(lambda: [1][5])
check(lambda: (1,)[5])
check(lambda: {"a": 1}["b"])
check(lambda: int("x"))
check(lambda: undefined_name)
check(lambda: "a" + 1)
check(lambda: 1 + "a")
check(lambda: [] < 3)
check(lambda: None.foo)
check(lambda: "abc".nope)
check(lambda: len(5))
check(lambda: (lambda a: a)())
check(lambda: (lambda a: a)(1, 2))
check(lambda: (lambda a: a)(b=1))
check(lambda: [1, 2].remove(5))
check(lambda: {}.pop("x"))
check(lambda: int(float("nan")))
check(lambda: 3())
check(lambda: [x for x in 5])
def unpack():
    a, b = [1, 2, 3]
check(unpack)
def unpack2():
    a, b, c = [1, 2]
check(unpack2)
def assertion():
    assert 1 == 2, "one is not two"
check(assertion)
def assertion2():
    assert False
check(assertion2)
try:
    try:
        raise ValueError("inner")
    finally:
        print("finally runs")
except ValueError as e:
    print("outer caught", e)
def reraise():
    try:
        raise KeyError("k")
    except KeyError:
        raise
check(reraise)
try:
    raise RuntimeError("x")
except (TypeError, RuntimeError) as e:
    print("tuple caught", e)
else:
    print("no")
try:
    pass
except Exception:
    print("no")
else:
    print("else runs")
finally:
    print("finally2")
def ret_in_finally():
    try:
        return "try"
    finally:
        print("cleanup")
print(ret_in_finally())
import math
print(math.sqrt(16), math.floor(2.7), math.ceil(2.1), math.pi, math.exp(1), math.log(math.e))
check(lambda: math.sqrt(-1))
