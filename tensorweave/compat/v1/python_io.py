"""`tf.python_io`: TFRecord files (`formats/`, beside the table, so declared here, with their `tf.io` names)."""

from tensorweave.formats import tfrecord as _tfrecord
from tensorweave.platform.tf_export import export_value as _export_value
from tensorweave.platform.tf_export import populate as _populate

_export_value(_tfrecord.TFRecordCompressionType, "io.TFRecordCompressionType", "python_io.TFRecordCompressionType")
_export_value(_tfrecord.TFRecordOptions, "io.TFRecordOptions", "python_io.TFRecordOptions")
_export_value(_tfrecord.TFRecordWriter, "io.TFRecordWriter", "python_io.TFRecordWriter")
_export_value(_tfrecord.tf_record_iterator, "io.tf_record_iterator", "python_io.tf_record_iterator")

_populate(globals(), "python_io")
