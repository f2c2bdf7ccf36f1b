"""`tf.summary`: event files (the summary ops come with the TensorBoard issue).

The event protobufs live in `formats/`, beside the table, so they are declared here, with the top-level
names TF1 also gives three of them.
"""

from tensorweave.formats import protos as _protos
from tensorweave.platform.tf_export import export_value as _export_value
from tensorweave.platform.tf_export import populate as _populate
from tensorweave.summary import writer as _writer

_export_value(_protos.Event, "summary.Event", "Event")
_export_value(_protos.SessionLog, "summary.SessionLog", "SessionLog")
_export_value(_protos.Summary, "summary.Summary", "Summary")
_export_value(_protos.SummaryDescription, "summary.SummaryDescription")
_export_value(_protos.TaggedRunMetadata, "summary.TaggedRunMetadata")

_populate(globals(), "summary")
