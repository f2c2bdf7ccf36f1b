"""tensorweave: the TensorFlow 1.x system of the papers, in Python. Use `import tensorweave.compat.v1 as tf`."""
