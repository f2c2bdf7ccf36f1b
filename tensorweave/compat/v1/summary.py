"""`tf.summary`: the summary ops (`ops/summary_ops.py`) and event files.

The event protobufs live in `formats/`, beside the table, so they are declared here, with the top-level
names TF1 also gives three of them.
"""

from tensorweave.formats import protos as _protos
from tensorweave.ops import summary_ops as _summary_ops
from tensorweave.platform.tf_export import export_value as _export_value
from tensorweave.platform.tf_export import populate as _populate
from tensorweave.summary import writer as _writer

_export_value(_protos.Event, "summary.Event", "Event")
_export_value(_protos.SessionLog, "summary.SessionLog", "SessionLog")
_export_value(_protos.Summary, "summary.Summary", "Summary")
_export_value(_protos.SummaryDescription, "summary.SummaryDescription")
_export_value(_protos.TaggedRunMetadata, "summary.TaggedRunMetadata")

_populate(globals(), "summary")
