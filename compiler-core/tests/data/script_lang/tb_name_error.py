x = 1
print(x, undefined_thing)
