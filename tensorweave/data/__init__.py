"""tf.data: input pipelines as graph-building datasets whose iterators run in the executor."""
