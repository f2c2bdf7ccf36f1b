"""Traced steps: RunMetadata.step_stats and cost_graph as TF fills them, and the Chrome trace timeline."""

import json

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.client.timeline import Timeline

CPU = "/job:localhost/replica:0/task:0/device:CPU:"


def _traced_two_device_step(graph_options=None):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    with tf.device("/cpu:1"):
        y = tf.nn.relu(tf.matmul(x, tf.ones([3, 4], name="w")), name="y")
    z = tf.reduce_sum(y, name="z")
    options, metadata = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}, graph_options=graph_options)) as sess:
        assert sess.run(z, {x: np.ones((2, 3))}, options=options, run_metadata=metadata) == 24.0
    return metadata


def test_full_trace_lists_every_node_per_device_with_tf_fields():
    metadata = _traced_two_device_step()
    stats = {d.device: {n.node_name: n for n in d.node_stats} for d in metadata.step_stats.dev_stats}
    assert set(stats) == {CPU + "0", CPU + "1"}
    cpu0, cpu1 = stats[CPU + "0"], stats[CPU + "1"]
    assert {"_SOURCE", "_arg_x_0_0", "_retval_z_0_0", "z"} <= set(cpu0)
    assert {"_SOURCE", "w", "MatMul", "y"} <= set(cpu1)
    assert [n.node_name for n in metadata.step_stats.dev_stats[0].node_stats][0] == "_SOURCE"
    matmul = cpu1["MatMul"]
    assert matmul.timeline_label.startswith("MatMul = MatMul(") and matmul.thread_id > 0
    assert matmul.all_start_micros > 0 and matmul.op_end_rel_micros == matmul.all_end_rel_micros >= 0
    (output,) = matmul.output
    description = output.tensor_description
    assert (description.dtype, [d.size for d in description.shape.dim]) == (tf.float32.as_datatype_enum, [2, 4])
    assert description.allocation_description.requested_bytes == 32
    sends = [n for n in cpu0.values() if n.timeline_label.split(" = ")[1].startswith("_Send(")]
    assert sends and all(f"@{CPU}1)" in n.timeline_label for n in sends)
    assert [d.size for d in cpu0["_arg_x_0_0"].output[0].tensor_description.shape.dim] == [2, 3]
    assert cpu1["w"].output[0].tensor_description.allocation_description.requested_bytes == 48  # a Const


def test_the_cost_model_option_fills_the_cost_graph():
    assert not _traced_two_device_step().HasField("cost_graph")  # FULL_TRACE alone gives none, as TF
    nodes = {n.name: n for n in _traced_two_device_step(tf.GraphOptions(build_cost_model=1)).cost_graph.node}
    assert nodes["MatMul"].device == CPU + "1" and nodes["MatMul"].output_info[0].size == 32
    assert {nodes[n].id for n in nodes} == set(range(len(nodes)))
    preceding = {i.preceding_node for i in nodes["MatMul"].input_info}
    assert nodes["w"].id in preceding and nodes["_retval_z_0_0"].is_final


def test_timeline_writes_chrome_trace_with_both_devices_and_send_recv_flows():
    metadata = _traced_two_device_step()
    trace = json.loads(Timeline(metadata.step_stats).generate_chrome_trace_format(show_dataflow=True))
    events = trace["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(processes.values()) == [CPU + "0 Compute", CPU + "1 Compute"]
    ops = [e for e in events if e["ph"] == "X"]
    assert {"MatMul", "_Send", "_Recv", "_Arg", "_Retval"} <= {e["name"] for e in ops}
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "t"}
    assert len(starts) == 2 and starts.keys() == ends.keys()  # x to /cpu:1, y back
    assert all(starts[i]["pid"] != ends[i]["pid"] for i in starts)
    quiet = json.loads(Timeline(metadata.step_stats).generate_chrome_trace_format(show_dataflow=False,
                                                                                 show_memory=True))
    assert not any(e["ph"] in "st" for e in quiet["traceEvents"])
    assert any(e["ph"] == "C" for e in quiet["traceEvents"])


@pytest.mark.parametrize("every, after, expected", [(2, 0, [0, 1, 0, 1, 0, 1, 0, 1, 0]),
                                                    (2, 1, [0, 0, 1, 0, 1, 0, 1, 0, 1]),
                                                    (3, 2, [0, 0, 0, 0, 1, 0, 0, 1, 0])])
def test_cost_graphs_come_on_tfs_schedule_counted_per_step(every, after, expected):
    """GraphOptions.build_cost_model(_after): which runs of one step return a cost graph, traced or not; another
    step's runs do not count (TF 2.21's, for 7 runs, a run of another step, then two more, the last traced)."""
    a = tf.constant(1.0)
    b = a * 2.0 + 1.0
    got = []
    with tf.Session(config=tf.ConfigProto(graph_options=tf.GraphOptions(build_cost_model=every,
                                                                        build_cost_model_after=after))) as sess:
        for run in range(9):
            if run == 7:
                sess.run(a)
            metadata = tf.RunMetadata()
            options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) if run == 8 else None
            sess.run(b, options=options, run_metadata=metadata)
            got.append(int(metadata.HasField("cost_graph")))
            assert metadata.HasField("step_stats") == (run == 8)
    assert got == expected
