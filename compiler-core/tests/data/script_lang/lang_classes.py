class Animal:
    kind = "animal"
    def __init__(self, name):
        self.name = name
    def speak(self):
        return f"{self.name} makes a sound"
    def __repr__(self):
        return f"Animal({self.name!r})"
class Dog(Animal):
    def __init__(self, name, breed):
        super().__init__(name)
        self.breed = breed
    def speak(self):
        return super().speak() + " (woof)"
    def __str__(self):
        return "Dog " + self.name
d = Dog("rex", "lab")
print(d.speak(), d.kind, Dog.kind, isinstance(d, Animal), issubclass(Dog, Animal), type(d).__name__)
print(d, repr(d), [d], str(Animal("cat")))
print(hasattr(d, "breed"), getattr(d, "zzz", "default"), Dog.__mro__[1].__name__)
class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __eq__(self, o):
        return self.x == o.x and self.y == o.y
    def __len__(self):
        return 2
    def __getitem__(self, i):
        return (self.x, self.y)[i]
    def __repr__(self):
        return "Vec(%d, %d)" % (self.x, self.y)
    @property
    def norm2(self):
        return self.x ** 2 + self.y ** 2
    @staticmethod
    def zero():
        return Vec(0, 0)
    @classmethod
    def unit(cls):
        return cls(1, 1)
v = Vec(1, 2) + Vec(3, 4)
print(v, v == Vec(4, 6), len(v), v[1], v.norm2, Vec.zero(), Vec.unit(), list(v))
class MyError(Exception):
    pass
class CodeError(ValueError):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code
try:
    raise MyError("boom")
except Exception as e:
    print(type(e).__name__, e, repr(e), e.args)
try:
    raise CodeError(42)
except ValueError as e:
    print(e, e.code, isinstance(e, Exception))
class Counter:
    count = 0
    def __init__(self):
        Counter.count += 1
Counter(); Counter()
print(Counter.count)
print(type(3), type("s"), type([]), type(None), type(Vec), type(len))
print(isinstance(True, int), isinstance(3, (str, int)), isinstance(3.0, int))
