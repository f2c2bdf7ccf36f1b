"""The versions tensorweave reports (TF's `tf.VERSION`, `tf.GRAPH_DEF_VERSION`...) and stamps on what it writes.

tensorweave writes the formats of one TF release, TF 2.21, and so reports that release: `VERSION` goes into
a MetaGraphDef's `tensorflow_version`, which TF's `import_meta_graph` parses as a version number (so it must
be one), and every GraphDef carries 2.21's `GRAPH_DEF_VERSION`. The build constants describe what really
runs: `GIT_VERSION` names the producer, `COMPILER_VERSION` is the compiler of the Python interpreter that runs
the kernels, and as no C++ is built there is no C++11 ABI and no monolithic build.
"""

from __future__ import annotations

import platform

from tensorweave.platform.tf_export import export_value

VERSION = "2.21.0"
GIT_VERSION = "tensorweave"
COMPILER_VERSION = platform.python_compiler()

# The GraphDef versions of TF 2.21: the producer version stamped on graphs, and the oldest consumer and
# producer versions it supports.
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

# TF1 has the build constants at the top level, also as `tf.__version__` and the like, and the release and
# GraphDef versions in tf.version too.
export_value(VERSION, "version.VERSION", "VERSION", "__version__")
export_value(GIT_VERSION, "version.GIT_VERSION", "GIT_VERSION", "__git_version__")
export_value(COMPILER_VERSION, "version.COMPILER_VERSION", "COMPILER_VERSION", "__compiler_version__")
export_value(GRAPH_DEF_VERSION, "version.GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION")
export_value(GRAPH_DEF_VERSION_MIN_CONSUMER, "version.GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_CONSUMER")
export_value(GRAPH_DEF_VERSION_MIN_PRODUCER, "version.GRAPH_DEF_VERSION_MIN_PRODUCER", "GRAPH_DEF_VERSION_MIN_PRODUCER")
