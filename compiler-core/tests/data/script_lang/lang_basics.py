# numbers
print(1 + 2, 7 / 2, 7 // 2, -7 // 2, 7 % -3, 2 ** 10, 2 ** -1, 10 ** 18)
print(0.1 + 0.2, 1 / 3, 2.0, 1e100, 1.5e-7, 123456789.123, -0.0, float("inf"), float("nan"))
print(round(2.5), round(3.5), round(-2.5), round(1.25, 1), round(2.675, 2), round(1234, -2))
print(abs(-3), abs(-2.5), divmod(7, 3), divmod(-7, 3), pow(2, 10, 1000), max(3, 1, 2), min([4, 2, 8]))
print(int("42"), int("-0x1f", 16), int(3.9), int(-3.9), float("1.5"), str(12), bool(0), bool("x"))
print(True + True, 3 * True, hex(255), bin(5), oct(8), chr(65), ord("a"))
print(1 < 2 < 3, 1 < 3 < 2, 1 == 1.0, "a" < "b", [1, 2] < [1, 3], (1, 2) == (1, 2))
print(5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 10, 1024 >> 3)
x = 10
x += 5; x -= 3; x *= 2; x //= 5; x **= 2
print(x)
# strings
s = "Hello, World"
print(s.lower(), s.upper(), s.split(", "), s.replace("l", "L"), s.find("o"), s.count("l"))
print(s[0], s[-1], s[2:5], s[::-1], s[::2], len(s), "World" in s)
print("  pad  ".strip(), "xxabcxx".strip("x"), "a,b,,c".split(","), " a  b ".split())
print("-".join(["a", "b", "c"]), "abc".startswith("ab"), "abc".endswith(("x", "c")))
print("{} and {}".format(1, 2), "{0}{1}{0}".format("a", "b"), "{name}!".format(name="x"))
print("{:>6}|{:<6}|{:^6}|{:06.2f}|{:+d}|{:,}".format("r", "l", "c", 3.14159, 5, 1234567))
print(f"{x=}", f"{s!r}", f"{3.14159:.2f}", f"{42:x}", f"{'c':*^7}", f"{1e-7:g}", f"{123.456:e}")
print("%s %r %d %5.2f %-5d| %05d %x %e %g %%" % ("s", "r", 42, 3.14159, 7, 42, 255, 12345.678, 0.0001))
print("abc" * 3, "a" + "b", repr("it's"), repr('say "hi"'), repr("tab\there\n"))
print("title case here".title(), "abc".capitalize(), "a1".isalnum(), "12".isdigit(), "  ".isspace())
print("x".center(5, "-"), "7".zfill(3), "a=b".partition("="), "one two".rsplit(" ", 1))
