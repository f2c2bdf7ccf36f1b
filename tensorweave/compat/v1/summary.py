"""`tf.summary`: event files (the summary ops come with the TensorBoard issue)."""

from tensorweave.formats.events import FileWriter, FileWriterCache, summary_iterator
from tensorweave.formats.protos import Event, SessionLog, Summary, SummaryMetadata

__all__ = ["Event", "FileWriter", "FileWriterCache", "SessionLog", "Summary", "SummaryMetadata", "summary_iterator"]
