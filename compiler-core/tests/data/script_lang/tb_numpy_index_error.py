import numpy as np
a = np.zeros(3)
b = a[5]
