"""The whitepaper's Figure 1 program: a ReLU layer, run ten times with fresh inputs.

Run with `make demo`. It checks each result against NumPy and prints the step time.
"""

import time

import numpy as np

import tensorweave.compat.v1 as tf

b = tf.Variable(tf.zeros([100]))                       # 100-d vector, init to zeroes
W = tf.Variable(tf.random_uniform([784, 100], -1, 1))  # 784x100 matrix w/rnd vals
x = tf.placeholder(tf.float32, name="x")               # Placeholder for input
relu = tf.nn.relu(tf.matmul(x, W) + b)                 # Relu(Wx+b)
C = tf.reduce_sum(relu)                                # Cost computed as a function of Relu

s = tf.Session()
s.run(tf.global_variables_initializer())
W_value, b_value = s.run([W, b])
rng = np.random.default_rng(0)
for step in range(10):
    inputs = rng.random((100, 784), dtype=np.float32)  # Load input batch
    start = time.perf_counter()
    result = s.run(C, feed_dict={x: inputs})           # Run the graph and fetch C
    elapsed = time.perf_counter() - start
    expected = np.maximum(inputs @ W_value + b_value, 0).sum()
    assert np.isclose(result, expected, rtol=1e-4), (result, expected)
    print(f"step {step}: C = {result:12.3f}   (numpy {expected:12.3f})   {elapsed * 1e6:7.1f} us")
s.close()
print("Figure 1 ran; every step matched NumPy.")
