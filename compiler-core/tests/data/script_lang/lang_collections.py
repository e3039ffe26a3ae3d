# collections.defaultdict: missing keys get the factory's value on d[key].
from collections import defaultdict

counts = defaultdict(int)
for word in "the cat saw the other cat".split():
    counts[word] += 1
print(sorted(counts.items()))
print(counts["dog"], "dog" in counts, len(counts))
print(counts.get("bird"), "bird" in counts)

groups = defaultdict(list)
for n in range(7):
    groups[n % 3].append(n)
print(dict(groups))
print(isinstance(groups, dict))

seeded = defaultdict(lambda: "?", {"a": "x"}, b="y")
print(seeded["a"], seeded["b"], seeded["c"], sorted(seeded))

plain = defaultdict()
try:
    plain["missing"]
except KeyError as e:
    print("KeyError", e)

copied = dict(counts)
try:
    copied["fish"]
except KeyError as e:
    print("KeyError", e)

try:
    defaultdict(3)
except TypeError as e:
    print("TypeError:", e)
