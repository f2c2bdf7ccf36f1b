"""`tf.io`: TFRecord files under their `tf.io` names (TF1 keeps make_tensor_proto at the top level only)."""

from tensorweave.formats.tfrecord import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
