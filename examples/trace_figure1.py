"""The whitepaper's Figure 1 program traced over two CPU devices, written as a Chrome trace.

`python examples/trace_figure1.py [out.json]` runs one FULL_TRACE step with the ReLU layer on /cpu:1 and
the cost on /cpu:0, and writes the step's timeline (open it in chrome://tracing or ui.perfetto.dev): both
devices as processes, and flow arrows from each _Send to its _Recv.
"""

import sys

import numpy as np

import tensorweave.compat.v1 as tf
from tensorweave.client.timeline import Timeline


def main(path: str = "figure1_trace.json") -> None:
    with tf.device("/cpu:1"):
        b = tf.Variable(tf.zeros([100]))
        W = tf.Variable(tf.random_uniform([784, 100], -1, 1))
        x = tf.placeholder(tf.float32, name="x")
        relu = tf.nn.relu(tf.matmul(x, W) + b)
    with tf.device("/cpu:0"):
        C = tf.reduce_sum(relu)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s:
        s.run(tf.global_variables_initializer())
        options, metadata = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), tf.RunMetadata()
        inputs = np.random.default_rng(0).random((100, 784), dtype=np.float32)
        s.run(C, feed_dict={x: inputs}, options=options, run_metadata=metadata)
    with open(path, "w") as f:
        f.write(Timeline(metadata.step_stats).generate_chrome_trace_format(show_dataflow=True))
    print(f"wrote {path}: {sum(len(d.node_stats) for d in metadata.step_stats.dev_stats)} node records on "
          f"{len(metadata.step_stats.dev_stats)} devices")


if __name__ == "__main__":
    main(*sys.argv[1:])
