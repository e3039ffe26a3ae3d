values = [1, 2, 3]
total = values[0] + "a"
