def inner(d):
    return d["missing"]
def outer():
    x = {"a": 1}
    return inner(x) + 1
print("before")
outer()
