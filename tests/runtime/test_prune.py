"""prune() on hand-written GraphDefs: closure from fetches and targets, feeds cut in as _Arg nodes."""

import pytest

import tensorweave.compat.v1  # noqa: F401 - registers the ops
from tensorweave import errors
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.runtime.prune import prune


def _graph():
    # a -> b -> d ; c -> d ; e (unrelated) ; f depends on d by control edge
    return GraphDef(node=[
        NodeDef("a", "Placeholder", [], "", {"dtype": dtypes.float32, "shape": None}),
        NodeDef("b", "Identity", ["a"], "", {"T": dtypes.float32}),
        NodeDef("c", "Placeholder", [], "", {"dtype": dtypes.float32, "shape": None}),
        NodeDef("d", "AddV2", ["b", "c"], "", {"T": dtypes.float32}),
        NodeDef("e", "Placeholder", [], "", {"dtype": dtypes.float32, "shape": None}),
        NodeDef("f", "NoOp", ["^d"], "", {}),
    ])


def _names(graph_def):
    return [n.name for n in graph_def.node]


def test_closure_of_fetches_only():
    out = prune(_graph(), [], ["b:0"], [])
    assert _names(out) == ["a", "b", "_retval_b_0_0"]
    assert out.node[-1].op == "_Retval" and out.node[-1].input == ["b"]


def test_feed_cuts_the_producer_out():
    out = prune(_graph(), ["b:0"], ["d:0"], [], {"b:0": dtypes.float32, "d:0": dtypes.float32})
    names = _names(out)
    assert "a" not in names and "b" not in names
    d = next(n for n in out.node if n.name == "d")
    assert d.input == ["_arg_b_0_0", "c"]
    arg = out.node[0]
    assert (arg.op, arg.attr["index"], arg.attr["T"]) == ("_Arg", 0, dtypes.float32)


def test_feeding_any_tensor_not_only_placeholders():
    out = prune(_graph(), ["d:0"], ["d:0"], [])
    assert _names(out) == ["_arg_d_0_0", "_retval_d_0_0"]
    assert out.node[1].input == ["_arg_d_0_0"]


def test_targets_follow_control_edges():
    out = prune(_graph(), [], [], ["f"])
    assert set(_names(out)) == {"a", "b", "c", "d", "f"}


def test_original_graph_is_unchanged():
    g = _graph()
    prune(g, ["b:0"], ["d:0"], [])
    assert g.node[3].input == ["b", "c"]


@pytest.mark.parametrize("feeds,fetches,targets", [(["zz:0"], [], []), ([], ["zz:0"], []), ([], [], ["zz"])])
def test_unknown_names_are_not_found(feeds, fetches, targets):
    with pytest.raises(errors.NotFoundError):
        prune(_graph(), feeds, fetches, targets)


def test_a_fed_placeholders_control_edges_move_to_its_arg():
    # TF's FeedInputs: a control dependency on a fed placeholder waits on the feed, not the placeholder.
    graph = GraphDef(node=[*_graph().node, NodeDef("g", "NoOp", ["^a", "^b"], "", {})])
    out = prune(graph, ["a:0", "b:0"], [], ["g"])
    assert _names(out) == ["_arg_a_0_0", "_arg_b_0_1", "b", "g"]
    assert next(n for n in out.node if n.name == "g").input == ["^_arg_a_0_0", "^b"]


def test_call_frame_nodes_are_named_as_tfs_by_their_place_among_the_sorted_feeds_and_fetches():
    # TF 2.21 (recorded from its partition graphs): '/' kept, i the rank of the tensor's name; the index attr
    # keeps the caller's order
    g = GraphDef(node=[NodeDef("in/x", "Placeholder", [], "", {"dtype": dtypes.float32, "shape": None}),
                       NodeDef("a/b", "Identity", ["in/x"], "", {"T": dtypes.float32}),
                       NodeDef("a/split", "Split", ["a/b"], "", {"T": dtypes.float32, "num_split": 2})])
    out = prune(g, ["in/x:0"], ["a/b:0", "a/split:1", "a/split:0"], [])
    assert [(n.name, n.attr["index"]) for n in out.node if n.op in ("_Arg", "_Retval")] == [
        ("_arg_in/x_0_0", 0), ("_retval_a/b_0_0", 0), ("_retval_a/split_1_2", 1), ("_retval_a/split_0_1", 2)]
