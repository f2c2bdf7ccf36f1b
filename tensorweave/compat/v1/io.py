"""`tf.io`: TFRecord files and TensorProto conversion under their `tf.io` names."""

from tensorweave.formats.tensor_proto import make_ndarray, make_tensor_proto
from tensorweave.formats.tfrecord import (
           TFRecordCompressionType,
           TFRecordOptions,
           TFRecordWriter,
           tf_record_iterator,
)

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "make_ndarray", "make_tensor_proto",
           "tf_record_iterator"]
