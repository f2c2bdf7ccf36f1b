"""`tf.layers`: TF1's layer objects and functional forms, built on variable scopes (no Keras)."""
