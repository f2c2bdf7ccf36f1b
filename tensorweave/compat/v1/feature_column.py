"""`tf.feature_column`: columns that turn raw features into a model's input (`input_layer`, `linear_model`)."""

from tensorweave.layers import feature_column as _feature_column
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "feature_column")
