class A:
    pass
a = A()
a.missing_attr
