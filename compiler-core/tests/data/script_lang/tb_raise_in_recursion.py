def f(n):
    if n == 0:
        raise ValueError("bottom reached")
    return f(n - 1)
f(3)
