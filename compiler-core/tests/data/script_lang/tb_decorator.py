def deco(f):
    raise ValueError("bad")
x = 1

@deco
def foo():
    pass
