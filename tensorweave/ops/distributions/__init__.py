"""`tf.distributions` (TF1): the probability distributions TF 1.x ships in tensorflow/python/ops/distributions.

One module per family, as TF keeps them: `distribution` (the base class and the reparameterization types),
`kullback_leibler` (the KL registry), `util` and `special_math` (shared helpers), then one module per
distribution. Everything is built from existing ops, so graphs, gradients and seeded samples are TF's.
"""
