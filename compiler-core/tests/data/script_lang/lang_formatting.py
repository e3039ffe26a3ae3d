vals = [0, 1, -1, 3.14159, -2.5, 1e-7, 1e21, 123456.789, float("inf"), float("nan"), True]
for v in vals:
    print(repr(v), str(v), f"{v}", "%s" % (v,), "%r" % (v,))
for spec in ["", ".2f", "10.3f", "<8", ">8", "^8", "+.1e", "g", ".3g", "08.2f", ",.2f", ".0%", "e", "E", ".10g"]:
    print(repr(spec), format(3.14159, spec), format(-1234.5678, spec), format(0.000123, spec))
for spec in ["", "d", "5d", "<5", "^5", "05d", "+d", "x", "X", "#x", "o", "#b", ",", "_"]:
    print(repr(spec), format(255, spec), format(-42, spec), format(1234567, spec))
for spec in ["", "s", "10", "<10", ">10", "^10", "*^10", ".2", "-<6"]:
    print(repr(spec), format("hello", spec), "|")
print("%5s|%-5s|%05.1f|%+d|% d|%x|%X|%o|%e|%E|%g|%G|%c|%%" % ("ab", "cd", 3.14159, 5, 7, 255, 255, 8, 12345.678, 0.00012, 1e-10, 1e20, 65))
print("%(a)s and %(b)d" % {"a": "x", "b": 2}, "%.3s" % "abcdef", "%*d" % (5, 3), "%-*d|" % (5, 3))
print("{:>{w}}".format("r", w=5), "{0:.{1}f}".format(3.14159, 2), "{!r:>8}".format("q"), "{0[1]}".format([1, 2]), "{0.real}".format(3))
print(f"{'nested {braces}'}", f"{{literal}}", f"{3+4=}", f"{'x'!r:^7}", f"{[1,2]}", f"{ {'k': 1}['k'] }")
w, p = 10, 3
print(f"{3.14159:{w}.{p}f}|", f"{42:#06x}", f"{1234567.891:,.2f}", f"{0.5:.0%}", f"{-0.0}", f"{1e16}", f"{12345678901234567.0}")
print(str(1.0), str(10.0), str(1e15), str(1e16), str(0.0001), str(0.00001), str(1.5e300), str(-2.0e-10), str(2**0.5))
print(round(0.5), round(1.5), round(2.5), round(-0.5), round(2.675, 2), round(0.125, 2), round(1e15 + 0.5), round(3.14159, 3))
print(int(2.9), int(-2.9), 7 // -2, -7 // -2, 7.5 // 2, -7.5 // 2, 7.5 % 2, -7.5 % 2, 5 % -3, divmod(-7.5, 2))
print(1 / 3 * 3, 0.1 * 3, 1e308 * 10, -1e308 * 10, 2 ** 62 - 1 + 2 ** 62, -(2 ** 62) * 2)
print("é".upper(), "straße".upper(), len("héllo"), "héllo"[1], "日本"[::-1], repr("\x00\x7f"), "a\tb".expandtabs(4))
