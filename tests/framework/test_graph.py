"""Graph, Operation, Tensor, scopes and tensor conversion, checked against real TensorFlow 2.21 in v1 graph mode.

Every expected name, value and message below was recorded by running the same snippet under
`tensorflow.compat.v1` (with `disable_v2_behavior()`); TF raises `OperatorNotAllowedInGraphError`, a
TypeError subclass, where these tests expect TypeError.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework import op_registry
from tensorweave.framework.graph import Graph

_NOT_ALLOWED = ("is not allowed. You can attempt the following resolutions to the problem: If you are running "
                "in Graph mode, use Eager execution mode or decorate this function with @tf.function.")


@pytest.fixture
def g() -> Iterator[Graph]:
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def _names(ops: list) -> list[str]:
    return [op.name for op in ops]


# -- default graph ----------------------------------------------------------------------------------


def test_as_default_nests_and_restores(g: Graph) -> None:
    assert tf.get_default_graph() is g
    inner = tf.Graph()
    with inner.as_default() as entered:
        assert entered is inner and tf.get_default_graph() is inner
        with pytest.raises(RuntimeError), g.as_default():
            raise RuntimeError("unwinds the stack")
        assert tf.get_default_graph() is inner
    assert tf.get_default_graph() is g


def test_default_graph_stack_is_per_thread(g: Graph) -> None:
    other = tf.Graph()
    seen = []

    def build() -> None:
        seen.append(tf.get_default_graph() is g)
        with other.as_default():
            seen.append(tf.constant(1, name="q").graph is other)
        seen.append(tf.get_default_graph() is other)

    thread = threading.Thread(target=build)
    thread.start()
    thread.join()
    assert seen == [False, True, False]
    assert tf.get_default_graph() is g and _names(other.get_operations()) == ["q"]


def test_reset_default_graph() -> None:
    before = tf.get_default_graph()
    tf.reset_default_graph()
    assert tf.get_default_graph() is not before
    with tf.Graph().as_default(), pytest.raises(AssertionError, match=re.escape(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a cleared graph, exit the "
            "nesting and create a new graph.")):
        tf.reset_default_graph()


# -- names and name scopes ----------------------------------------------------------------------------


def test_unique_names_are_case_insensitive(g: Graph) -> None:
    names = [tf.constant(1, name=n).op.name for n in ["foo", "foo", "Foo", "foo_1", "foo_2", "foo"]]
    assert names == ["foo", "foo_1", "Foo_2", "foo_1_1", "foo_2_1", "foo_3"]
    assert [g.unique_name("foo"), g.unique_name("foo", mark_as_used=False)] == ["foo_4", "foo_5"]
    assert [g.unique_name("bar", mark_as_used=False), g.unique_name("bar"), g.unique_name("bar")] == \
        ["bar", "bar", "bar_1"]
    assert [g.unique_name("a"), g.unique_name("a_1"), g.unique_name("a"), g.unique_name("a")] == \
        ["a", "a_1", "a_2", "a_3"]
    assert [g.unique_name("B"), g.unique_name("b"), g.unique_name("b_1")] == ["B", "b_1", "b_1_1"]


def test_names_inside_scopes(g: Graph) -> None:
    with tf.name_scope("s"):
        a, b = tf.constant(1, name="c"), tf.constant(1)
        assert [g.unique_name("x"), g.unique_name("x")] == ["s/x", "s/x_1"]
    with tf.name_scope("s"):
        c = tf.constant(1, name="c")
    with tf.name_scope("s/"):
        d = tf.constant(1, name="c")
    assert [a.op.name, b.op.name, c.op.name, d.op.name] == ["s/c", "s/Const", "s_1/c", "s/c_1"]
    assert tf.constant(1, name="s").op.name == "s_2"
    tf.constant(1, name="Foo")
    with tf.name_scope("foo") as scope:
        assert scope == "foo_1/"
    assert tf.constant(1.0, name="abc/").op.name == "abc"


def test_name_scope_nesting_absolute_and_reset(g: Graph) -> None:
    with tf.name_scope("a") as s1:
        with tf.name_scope("b") as s2:
            with tf.name_scope(None) as s3:
                assert (s3, tf.constant(1).op.name) == ("", "Const")
            with tf.name_scope("") as s4:
                assert (s4, tf.constant(1).op.name) == ("", "Const_1")
            with tf.name_scope("a/") as s5:
                assert (s5, tf.constant(1).op.name) == ("a/", "a/Const")
            assert g.get_name_scope() == "a/b"
        with g.name_scope("b") as s6, g.name_scope("c/") as s7:
            assert (s7, g.get_name_scope()) == ("c/", "c")
    assert (s1, s2, s6) == ("a/", "a/b/", "a/b_1/")
    assert g.get_name_scope() == ""
    with g.name_scope(b"bb") as s8:
        assert s8 == "bb/"


@pytest.mark.parametrize("outer, name, message", [
    (None, "_bad", "'_bad' is not a valid root scope name. A root scope name has to match the following pattern: "
                   r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$"),
    (None, "a b", "'a b' is not a valid root scope name. A root scope name has to match the following pattern: "
                  r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$"),
    ("a", "bad!", r"'bad!' is not a valid scope name. A scope name has to match the following pattern: "
                  r"^[A-Za-z0-9_.\\/>-]*$"),
])
def test_name_scope_rejects_invalid_names(g: Graph, outer: str | None, name: str, message: str) -> None:
    with g.name_scope(outer), pytest.raises(ValueError) as info, g.name_scope(name):
        pass
    assert str(info.value) == message


def test_invalid_op_names(g: Graph) -> None:
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="^'_x' is not a valid root scope name"):
        tf.add(x, x, name="_x")
    with tf.name_scope("s"):
        assert tf.add(x, x, name="_x").op.name == "s/_x"
    with pytest.raises(ValueError) as info:
        g.create_op("NoOp", [], name="_y")
    assert str(info.value) == ("`_y` is not a valid node name. Accepted names conform to Regex "
                               r"/re.compile('^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$')/")


def test_v1_name_scope_signature(g: Graph) -> None:
    x = tf.constant(1.0)
    scopes = []
    for args in [(None, "def", [x]), (None, "def", [x]), ("nm", "def", [x]), ("nm", "def"), ("nm/", "def")]:
        with tf.name_scope(*args) as scope:
            scopes.append(scope)
    assert scopes == ["def/", "def_1/", "nm/", "nm_1/", "nm/"]
    with tf.name_scope(None) as scope, tf.name_scope(None, None) as scope2:
        assert (scope, scope2) == ("", "")
    with tf.name_scope("outer"), tf.name_scope(None, "dflt", [x]) as scope:
        assert scope == "outer/dflt/"
    with pytest.raises(ValueError, match=re.escape("At least one of name (None) and default_name (None) must be "
                                                   "provided.")), tf.name_scope(None, None, [1]):
        pass


def test_v1_name_scope_enters_the_graph_of_its_values(g: Graph) -> None:
    other = tf.Graph()
    with other.as_default():
        y = tf.constant(1.0)
    with tf.name_scope("ns", values=[y]) as scope:
        assert scope == "ns/" and tf.get_default_graph() is other
    x = tf.constant(1.0)
    with pytest.raises(ValueError) as info, tf.name_scope("ns", values=[x, y]):
        pass
    assert str(info.value) == (f'Tensor("Const:0", shape=(), dtype=float32) must be from the same graph as '
                               f'Tensor("Const:0", shape=(), dtype=float32) (graphs are {other} and {g}).')
    with pytest.raises(TypeError, match="as a Python `bool` is not allowed"), tf.name_scope("n", values=x):
        pass


# -- lookup -------------------------------------------------------------------------------------------


def test_lookup_by_name(g: Graph) -> None:
    a = tf.constant(1, name="a")
    assert g.get_operation_by_name("a") is a.op and g.get_tensor_by_name("a:0") is a
    assert g.as_graph_element("a") is a.op and g.as_graph_element("a:0") is a
    assert g.as_graph_element(b"a:0") is a and g.as_graph_element(a) is a and g.as_graph_element(a.op) is a.op
    assert g.as_graph_element("a:-1") is a  # TF indexes the outputs list
    with pytest.raises(TypeError, match="^Operation names are strings \\(or similar\\), not int.$"):
        g.get_operation_by_name(3)
    with pytest.raises(TypeError, match="^Tensor names are strings \\(or similar\\), not int.$"):
        g.get_tensor_by_name(3)


_TENSOR_FORM = ' Tensor names must be of the form "<op_name>:<output_index>".'


@pytest.mark.parametrize("name, kwargs, error, message", [
    ("zz", {}, KeyError, "The name 'zz' refers to an Operation not in the graph."),
    ("foo:0", {"allow_tensor": False}, ValueError, "Name 'foo:0' appears to refer to a Tensor, not a Operation."),
    ("bar:0", {}, KeyError, "The name 'bar:0' refers to a Tensor which does not exist. The operation, 'bar', does "
                            "not exist in the graph."),
    ("foo:7", {}, KeyError, "The name 'foo:7' refers to a Tensor which does not exist. The operation, 'foo', "
                            "exists but only has 1 outputs."),
    ("foo", {"allow_operation": False}, ValueError,
     "The name 'foo' refers to an Operation, not a Tensor." + _TENSOR_FORM),
    ("bar", {"allow_operation": False}, ValueError,
     "The name 'bar' looks like an (invalid) Operation name, not a Tensor." + _TENSOR_FORM),
    ("foo:x", {}, ValueError,
     "The name 'foo:x' looks a like a Tensor name, but is not a valid one." + _TENSOR_FORM),
    ("foo:1:0", {}, ValueError,
     "The name 'foo:1:0' looks a like a Tensor name, but is not a valid one." + _TENSOR_FORM),
    ("foo", {"allow_tensor": False, "allow_operation": False}, ValueError,
     "allow_tensor and allow_operation can't both be False."),
    (3, {}, TypeError, "Can not convert a int into a Tensor or Operation."),
    (3, {"allow_operation": False}, TypeError, "Can not convert a int into a Tensor."),
    (3, {"allow_tensor": False}, TypeError, "Can not convert a int into a Operation."),
])
def test_as_graph_element_errors(g: Graph, name: object, kwargs: dict, error: type, message: str) -> None:
    tf.constant(1, name="foo")
    with pytest.raises(error) as info:
        g.as_graph_element(name, **kwargs)
    assert info.value.args[0] == message
    if kwargs == {"allow_operation": False} and isinstance(name, str):
        with pytest.raises(error, match=re.escape(message)):
            g.get_tensor_by_name(name)


def test_as_graph_element_of_another_graph(g: Graph) -> None:
    with tf.Graph().as_default():
        y = tf.constant(1.0)
    with pytest.raises(ValueError) as info:
        g.as_graph_element(y)
    assert str(info.value) == 'Tensor Tensor("Const:0", shape=(), dtype=float32) is not an element of this graph.'
    with pytest.raises(ValueError, match="is not an element of this graph"):
        g.as_graph_element(y.op)
    with pytest.raises(TypeError, match=r"^Can not convert a \w*Tensor into a Operation.$"):
        g.as_graph_element(tf.constant(1.0), allow_tensor=False)


def test_get_operations_and_version(g: Graph) -> None:
    assert (g.version, g.seed, g.building_function) == (0, None, False)
    tf.constant(1, name="a")
    tf.constant(2, name="b")
    assert _names(g.get_operations()) == ["a", "b"] and g.version == 2


# -- collections --------------------------------------------------------------------------------------


def test_collections(g: Graph) -> None:
    g.add_to_collection("k", 1)
    g.add_to_collections(["k", "j"], 2)
    g.add_to_collections("k", 3)
    g.add_to_collections(["a", "a"], 4)
    assert (g.get_collection("k"), g.get_collection("j"), g.get_collection("nope")) == ([1, 2, 3], [2], [])
    assert g.get_collection("a") == [4]
    ref = g.get_collection_ref("k")
    ref.append(5)
    assert g.get_collection("k") == [1, 2, 3, 5] and g.get_collection_ref("k") is ref
    assert g.get_collection("k") is not ref
    assert sorted(g.get_all_collection_keys()) == ["a", "j", "k"]
    g.get_collection_ref("new")
    assert sorted(g.get_all_collection_keys()) == ["a", "j", "k", "new"]
    g.add_to_collection(3, "not a string key")
    assert "3" not in g.get_all_collection_keys() and 3 not in g.get_all_collection_keys()
    g.clear_collection("k")
    assert g.get_collection("k") == []
    tf.add_to_collections(("x", "y"), 5)
    assert tf.get_collection("x") == [5] and tf.get_collection_ref("y") == [5]


def test_collection_scope_filter(g: Graph) -> None:
    with tf.name_scope("s1"):
        a = tf.constant(1, name="a")
    with tf.name_scope("s2"):
        b = tf.constant(1, name="a")
    for value in [a, b, 3, object()]:
        tf.add_to_collection("c", value)
    names = {scope: [v.name for v in tf.get_collection("c", scope)] for scope in ["s1", "s.", "1", ""]}
    assert names == {"s1": ["s1/a:0"], "s.": ["s1/a:0", "s2/a:0"], "1": [], "": ["s1/a:0", "s2/a:0"]}
    assert len(tf.get_collection("c")) == 4

    class Named:
        name = None

    g.add_to_collection("n", Named())
    with pytest.raises(TypeError):
        g.get_collection("n", "x")


def test_collections_when_finalized(g: Graph) -> None:
    g.add_to_collection("x", 1)
    g.finalize()
    assert g.get_collection("x") == [1] and g.get_collection_ref("new") == []
    with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"):
        g.add_to_collection("x", 2)
    with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"):
        g.clear_collection("x")


def test_graph_keys() -> None:
    keys = tf.GraphKeys
    assert (keys.GLOBAL_VARIABLES, keys.VARIABLES, keys.TRAINABLE_VARIABLES, keys.LOCAL_VARIABLES) == \
        ("variables", "variables", "trainable_variables", "local_variables")
    assert (keys.UPDATE_OPS, keys.TABLE_INITIALIZERS, keys.LOSSES, keys.SUMMARIES, keys.QUEUE_RUNNERS) == \
        ("update_ops", "table_initializer", "losses", "summaries", "queue_runners")
    assert (keys.INIT_OP, keys.LOCAL_INIT_OP, keys.READY_OP, keys.READY_FOR_LOCAL_INIT_OP, keys.SUMMARY_OP) == \
        ("init_op", "local_init_op", "ready_op", "ready_for_local_init_op", "summary_op")
    assert (keys.GLOBAL_STEP, keys.EVAL_STEP, keys.TRAIN_OP, keys.SAVERS, keys.SAVEABLE_OBJECTS) == \
        ("global_step", "eval_step", "train_op", "savers", "saveable_objects")
    assert (keys.COND_CONTEXT, keys.WHILE_CONTEXT, keys.RESOURCES, keys.LOCAL_RESOURCES) == \
        ("cond_context", "while_context", "resources", "local_resources")
    assert (keys.MODEL_VARIABLES, keys.METRIC_VARIABLES, keys.MOVING_AVERAGE_VARIABLES,
            keys.REGULARIZATION_LOSSES, keys.ASSET_FILEPATHS, keys.CONCATENATED_VARIABLES,
            keys.TRAINABLE_RESOURCE_VARIABLES) == \
        ("model_variables", "metric_variables", "moving_average_variables", "regularization_losses",
         "asset_filepaths", "concatenated_variables", "trainable_resource_variables")


# -- control dependencies -----------------------------------------------------------------------------


def test_control_dependencies_nest_and_none_clears(g: Graph) -> None:
    a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
    with tf.control_dependencies([a]):
        c = tf.constant(3.0, name="c")
        with tf.control_dependencies([b.op]):
            d = tf.constant(4.0, name="d")
            with tf.control_dependencies(None):
                e = tf.constant(5.0, name="e")
                with tf.control_dependencies([c]):
                    f = tf.constant(6.0, name="f")
    assert [_names(t.op.control_inputs) for t in (c, d, e, f)] == [["a"], ["a", "b"], [], ["c"]]
    assert d.op.node_def.input == ["^a", "^b"]
    p, q, r = tf.constant(1.0, name="p"), tf.constant(1.0, name="q"), tf.constant(1.0, name="r")
    with tf.control_dependencies([r, p, q, p]):
        s = tf.constant(1.0, name="s")
    assert _names(s.op.control_inputs) == ["r", "p", "q"] and s.op.node_def.input == ["^r", "^p", "^q"]


def test_control_dependencies_skip_dominated_inputs(g: Graph) -> None:
    a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
    with tf.control_dependencies([a]):
        c = tf.add(b, b, name="c")
        d = tf.add(c, b, name="d")  # c already runs after a
        e = tf.add(a, b, name="e")  # a is an input
    with tf.control_dependencies([a]):
        f = tf.add(c, b, name="f")  # c was built in another block
    with tf.control_dependencies([a]), tf.control_dependencies([b]):
        h = tf.add(b, b, name="h")
        i = tf.add(h, h, name="i")
    with tf.control_dependencies([a]):
        j = tf.add(b, b, name="j")
        with tf.control_dependencies([b]):
            k = tf.add(j, j, name="k")
    assert [_names(t.op.control_inputs) for t in (c, d, e, f, h, i, k)] == \
        [["a"], [], [], ["a"], ["a"], [], ["b"]]


def test_control_inputs_resolve_like_graph_elements(g: Graph) -> None:
    a = tf.constant(1.0, name="a")

    class VariableLike:
        def _as_graph_element(self) -> object:
            return a

    with tf.control_dependencies([VariableLike()]):
        assert _names(tf.constant(1.0, name="d").op.control_inputs) == ["a"]
    with pytest.raises(TypeError, match="^Can not convert a int into a Tensor or Operation.$"), \
            tf.control_dependencies([1]):
        pass
    with pytest.raises(KeyError, match="The name 'zz' refers to an Operation not in the graph."), \
            tf.control_dependencies(["zz"]):
        pass
    with pytest.raises(TypeError, match=re.escape("Iterating over a symbolic `tf.Tensor` " + _NOT_ALLOWED)), \
            tf.control_dependencies(a):
        pass
    with tf.Graph().as_default():
        y = tf.constant(1.0)
    with pytest.raises(ValueError, match=re.escape('Tensor Tensor("Const:0", shape=(), dtype=float32) is not an '
                                                   "element of this graph.")), tf.control_dependencies([y]):
        pass
    b = tf.constant(1.0, name="b")
    b.op._add_control_input(a.op)
    b.op._add_control_inputs([a.op])
    assert _names(b.op.control_inputs) == ["a"] and b.op.node_def.input == ["^a"]


def _in_thread(fn: object) -> list:
    result: list = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join()
    return result


def test_scopes_shared_across_threads_until_switched(g: Graph) -> None:
    """TF keeps the name scope per thread but the dependency and device stacks per graph by default."""
    a = tf.constant(1.0, name="a")

    def build() -> tuple:
        with g.as_default():
            t = tf.constant(1.0, name="t")
            return t.op.name, _names(t.op.control_inputs), t.device

    with tf.name_scope("main"), tf.control_dependencies([a]), tf.device("/cpu:0"):
        assert _in_thread(build) == [("t", ["a"], "/device:CPU:0")]
    with tf.device("/gpu:0"):
        g.switch_to_thread_local()
        with tf.control_dependencies([a]):
            assert _in_thread(build) == [("t_1", [], "/device:GPU:0")]
    assert tf.constant(1.0).device == ""


# -- devices ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, device", [
    ("/CPU:0", "/device:CPU:0"), ("cpu:0", "/device:CPU:0"), ("/device:CPU:0", "/device:CPU:0"),
    ("/job:ps", "/job:ps"), ("/job:ps/replica:0/task:3/device:GPU:2", "/job:ps/replica:0/task:3/device:GPU:2"),
    ("/task:1", "/task:1"), ("/replica:2", "/replica:2"), ("GPU", "/device:GPU:*"), ("/gpu:*", "/device:GPU:*"),
    ("", ""), ("/job:a/device:cpu:1", "/job:a/device:CPU:1"),
])
def test_device_strings_are_canonical(g: Graph, spec: str, device: str) -> None:
    with tf.device(spec):
        assert tf.constant(1).device == device


def test_device_scopes_merge_inner_over_outer(g: Graph) -> None:
    with tf.device("/job:ps/task:1"):
        b = tf.constant(1.0)
        with tf.device("/gpu:1"):
            c = tf.constant(1.0)
            with tf.device("/job:worker"):
                d = tf.constant(1.0)
            with tf.device(None):
                e = tf.constant(1.0)
                with tf.device("/device:GPU:*"):
                    f = tf.constant(1.0)
    assert [t.device for t in (b, c, d, e, f)] == \
        ["/job:ps/task:1", "/job:ps/task:1/device:GPU:1", "/job:worker/task:1/device:GPU:1", "", "/device:GPU:*"]
    spec = tf.DeviceSpec(job="ps", task=2, device_type="CPU", device_index=0)
    with tf.device(spec):
        assert tf.constant(1.0).device == "/job:ps/task:2/device:CPU:0"
        with tf.device(tf.DeviceSpec(device_type="GPU")):
            assert tf.constant(1.0).device == "/job:ps/task:2/device:GPU:0"


def test_device_functions(g: Graph) -> None:
    def by_type(op: tf.Operation) -> str:
        return "/cpu:0" if op.type == "Const" else "/gpu:0"

    def last(fn: object) -> str:
        with tf.device(fn):
            a = tf.constant(1.0)
            return f"{a.device} {tf.add(a, a).device}"

    assert last(by_type) == "/cpu:0 /gpu:0"  # a function's result is stored as given
    with tf.device("/job:w"):
        assert last(by_type) == "/job:w/device:CPU:0 /job:w/device:GPU:0"
        with tf.device(lambda op: ""):
            assert tf.constant(1.0).device == "/job:w"
    with tf.device(by_type), tf.device("/job:w"):
        assert tf.constant(1.0).device == "/cpu:0"
    with tf.device(""), tf.device(lambda op: "cpu:0"):
        assert tf.constant(1.0).device == "cpu:0"
    with tf.device(lambda op: tf.DeviceSpec(job="x", device_type="GPU", device_index=1)):
        assert tf.constant(1.0).device == "/job:x/device:GPU:1"
    with tf.device(lambda op: None), \
            pytest.raises(TypeError, match="^Expected binary or unicode string, got None$"):
        tf.constant(1.0)
    a = tf.constant(1.0)
    a.op._set_device("/gpu:0")
    assert a.device == "/gpu:0"


# -- colocation ---------------------------------------------------------------------------------------


def test_colocate_with_takes_group_and_device(g: Graph) -> None:
    with tf.device("/gpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.device("/cpu:0"), tf.colocate_with(a):
        b = tf.constant(1.0, name="b")
        with tf.device("/job:ps"):
            c = tf.constant(1.0, name="c")
    assert (b.op.colocation_groups(), b.device, c.device) == ([b"loc:@a"], "/device:GPU:0", "/device:GPU:0")
    assert b.op.get_attr("_class") == [b"loc:@a"] and a.op.colocation_groups() == [b"loc:@a"]
    d = tf.constant(1.0, name="d")
    with tf.device("/cpu:0"), tf.colocate_with(d.op):
        e = tf.constant(1.0, name="e")  # device scopes are suspended inside
    assert (e.op.colocation_groups(), e.device) == ([b"loc:@d"], "")
    with tf.device("/job:ps"), tf.colocate_with(a), tf.device("/cpu:0"), tf.device("/task:2"):
        assert tf.constant(1.0).device == "/device:GPU:0"
    a.op._set_device("/gpu:1")
    with tf.colocate_with(a):
        assert tf.constant(1.0).device == "/gpu:1"


def test_colocate_with_nesting(g: Graph) -> None:
    z, a = tf.constant(1.0, name="z"), tf.constant(1.0, name="a")
    with tf.colocate_with(z):
        with tf.colocate_with(a):
            b = tf.constant(1.0, name="b")
        with tf.colocate_with(a, ignore_existing=True):
            c = tf.constant(1.0, name="c")
        with tf.colocate_with(None, ignore_existing=True):
            d = tf.constant(1.0, name="d")
        e = tf.constant(1.0, name="e")
    with tf.colocate_with(e):
        f = tf.constant(1.0, name="f")
    assert [t.op.colocation_groups() for t in (b, c, d, f)] == \
        [[b"loc:@a", b"loc:@z"], [b"loc:@a"], [b"loc:@d"], [b"loc:@z"]]
    with pytest.raises(ValueError, match="^Trying to reset colocation \\(op is None\\) but ignore_existing is not "
                                         "True$"), tf.colocate_with(None):
        pass


def test_colocate_with_converts_values(g: Graph) -> None:
    a = tf.constant(1.0, name="a")
    with tf.colocate_with("a"):  # a Python value, not a name: TF colocates with a new constant
        b = tf.constant(1.0, name="b")
    with tf.colocate_with(3):
        c = tf.constant(1.0, name="c")
    assert (b.op.colocation_groups(), c.op.colocation_groups()) == ([b"loc:@Const"], [b"loc:@Const_1"])
    assert _names(g.get_operations()) == ["a", "Const", "b", "Const_1", "c"]
    v = tf.Variable(1.0, name="v")
    with tf.colocate_with(v):
        assert tf.constant(1.0).op.colocation_groups() == [b"loc:@v"]
    with tf.control_dependencies([a]), tf.colocate_with(v.op):
        d = tf.constant(1.0, name="d")
    assert (d.op.colocation_groups(), _names(d.op.control_inputs)) == ([b"loc:@v"], ["a"])


# -- other graph state --------------------------------------------------------------------------------


def test_gradient_override_map(g: Graph) -> None:
    a = tf.constant([1.0])
    with g.gradient_override_map({"Identity": "TestGraphOverride"}):
        b = tf.identity(a)
        c = tf.negative(a)
    assert b.op.get_attr("_gradient_op_type") == b"TestGraphOverride" and g._gradient_override_map == {}
    with pytest.raises(ValueError, match="^Operation 'Neg' has no attr named '_gradient_op_type'.$"):
        c.op.get_attr("_gradient_op_type")
    with pytest.raises(TypeError, match="^op_type_map must be a dictionary mapping strings to strings$"), \
            g.gradient_override_map({"Identity": 3}):
        pass
    with pytest.raises(LookupError, match="^No gradient defined for operation'Identity' \\(op type: Identity\\)"):
        op_registry.get_gradient_function(b.op)
    assert op_registry.get_gradient_function(a.op) is None  # no inputs, nothing to differentiate


def test_finalize(g: Graph) -> None:
    a = tf.constant(1.0)
    assert not g.finalized
    g.finalize()
    assert g.finalized
    with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"):
        tf.identity(a)
    with tf.control_dependencies([a]), tf.name_scope("x") as scope:
        assert scope == "x/"
    g._unsafe_unfinalize()
    assert tf.identity(a).op.name == "Identity_1"  # the failed op's name scope was entered


def test_seed_and_container(g: Graph) -> None:
    assert g.seed is None
    tf.set_random_seed(3)
    assert g.seed == 3
    g.seed = None
    assert g.seed is None
    with g.container("c1") as name:
        assert name == "c1"
        v = tf.Variable(1.0, name="v")
        with g.container(""):
            w = tf.Variable(1.0, name="w")
    assert (v.op.get_attr("container"), w.op.get_attr("container"), g._container) == (b"c1", b"", "")
    with tf.container("cc") as name:
        assert name == "cc" and tf.Variable(1.0).op.get_attr("container") == b"cc"


# -- Operation ----------------------------------------------------------------------------------------


def test_operation_properties(g: Graph) -> None:
    a = tf.constant([[1.0, 2.0]], name="a")
    b = tf.constant([[3.0], [4.0]], name="b")
    op = tf.matmul(a, b, name="m").op
    assert (op.name, op.type, op.device, op.graph, op.control_inputs) == ("m", "MatMul", "", g, [])
    assert [t.name for t in op.inputs] == ["a:0", "b:0"] and [t.name for t in op.outputs] == ["m:0"]
    assert (type(op.inputs), type(op.outputs), type(op.control_inputs), type(op.values())) == \
        (tuple, list, list, tuple)
    assert op.values() == (op.outputs[0],) and repr(op) == "<tf.Operation 'm' type=MatMul>"
    assert (op.node_def.name, op.node_def.op, list(op.node_def.input)) == ("m", "MatMul", ["a", "b"])
    assert _names(a.consumers()) == ["m"] and op.outputs[0].consumers() == []
    assert op.get_attr("transpose_a") is False and op.get_attr("T") == tf.float32
    assert isinstance(op.get_attr("T"), tf.DType)
    frames = op.traceback
    assert frames and frames[-1][0] == __file__ and frames[-1][2] == "test_operation_properties"


def test_operation_str_is_the_node_def_text(g: Graph) -> None:
    a, c = tf.constant([1.0, 2.0], name="a"), tf.constant(3.0, name="c")
    with tf.device("/cpu:0"), tf.control_dependencies([c]), tf.colocate_with(a):
        b = tf.identity(a, name="b")
    with tf.device("/job:w/task:1"):
        n = tf.no_op(name="n")
    assert str(b.op) == ('name: "b"\nop: "Identity"\ninput: "a"\ninput: "^c"\nattr {\n  key: "_class"\n  value {\n'
                         '    list {\n      s: "loc:@a"\n    }\n  }\n}\nattr {\n  key: "T"\n  value {\n'
                         '    type: DT_FLOAT\n  }\n}\n')
    assert str(n) == 'name: "n"\nop: "NoOp"\ndevice: "/job:w/task:1"\n'
    with tf.Graph().as_default():
        other = tf.no_op(name="other")
    with pytest.raises(ValueError) as info:
        g.as_graph_element(other)
    assert str(info.value) == 'Operation name: "other"\nop: "NoOp"\n is not an element of this graph.'


def test_get_attr(g: Graph) -> None:
    p = tf.placeholder(tf.float32, shape=[None, 3], name="p")
    assert p.op.get_attr("dtype") == tf.float32 and tf.constant("hi").op.get_attr("dtype") == tf.string
    with tf.colocate_with(p):
        assert tf.constant(1).op.get_attr("_class") == [b"loc:@p"]
    s = tf.reduce_sum(tf.constant([[1.0]]), axis=0, keepdims=True)
    assert (s.op.get_attr("keep_dims"), s.op.get_attr("Tidx")) == (True, tf.int32)
    with pytest.raises(ValueError, match="^Operation 'p' has no attr named 'nope'.$"):
        p.op.get_attr("nope")


def test_run_and_eval_use_the_default_session(g: Graph) -> None:
    a = tf.constant(1.0, name="a")
    with tf.Session().as_default() as sess:
        assert tf.get_default_session() is sess
        assert a.eval() == 1.0 and a.op.run() is None
    assert tf.get_default_session() is None
    with pytest.raises(ValueError, match="^Cannot evaluate tensor using `eval\\(\\)`: No default session is "
                                         "registered."):
        a.eval()
    with pytest.raises(ValueError, match="^Cannot execute operation using `run\\(\\)`: No default session is "
                                         "registered."):
        a.op.run()
    with tf.Graph().as_default():
        other = tf.Session()
    with pytest.raises(ValueError, match="^Cannot use the given session to evaluate tensor: the tensor's graph is "
                                         "different from the session's graph.$"):
        a.eval(session=other)
    with pytest.raises(ValueError, match="^Cannot use the given session to execute operation: the operation's "
                                         "graph is different from the session's graph.$"):
        a.op.run(session=other)


# -- Tensor -------------------------------------------------------------------------------------------


def test_tensor_properties(g: Graph) -> None:
    a = tf.constant([[1.0, 2.0]], name="a")
    assert (a.name, a.dtype, a.op.name, a.value_index, a.graph, a.device) == ("a:0", tf.float32, "a", 0, g, "")
    assert a.shape.as_list() == [1, 2] and a.get_shape() is a.shape and isinstance(a.shape, tf.TensorShape)


def test_tensor_str_and_repr(g: Graph) -> None:
    cases = [
        (tf.constant(1.0, name="a"), 'Tensor("a:0", shape=(), dtype=float32)',
         "<tf.Tensor 'a:0' shape=() dtype=float32>"),
        (tf.placeholder(tf.float32, name="b"), 'Tensor("b:0", dtype=float32)',
         "<tf.Tensor 'b:0' shape=<unknown> dtype=float32>"),
        (tf.placeholder(tf.int32, [None, 3], name="c"), 'Tensor("c:0", shape=(?, 3), dtype=int32)',
         "<tf.Tensor 'c:0' shape=(?, 3) dtype=int32>"),
        (tf.placeholder(tf.string, [2, None, None], name="d"), 'Tensor("d:0", shape=(2, ?, ?), dtype=string)',
         "<tf.Tensor 'd:0' shape=(2, ?, ?) dtype=string>"),
        (tf.placeholder(tf.float32, [4], name="h"), 'Tensor("h:0", shape=(4,), dtype=float32)',
         "<tf.Tensor 'h:0' shape=(4,) dtype=float32>"),
    ]
    with tf.device("/cpu:0"):
        cases.append((tf.constant([1, 2], name="e"), 'Tensor("e:0", shape=(2,), dtype=int32, device=/device:CPU:0)',
                      "<tf.Tensor 'e:0' shape=(2,) dtype=int32>"))
    assert [(str(t), repr(t)) for t, _, _ in cases] == [(s, r) for _, s, r in cases]


def test_set_shape(g: Graph) -> None:
    p = tf.placeholder(tf.float32, name="p")
    p.set_shape([None, 3])
    p.set_shape([2, None])
    assert p.shape.as_list() == [2, 3]
    p.set_shape(tf.TensorShape([2, 3]))
    q = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match=re.escape("Dimension 1 in both shapes must be equal, but are 3 and 4. "
                                                   "Shapes are [?,3] and [2,4].")):
        q.set_shape([2, 4])
    with pytest.raises(ValueError, match="^Shapes must be equal rank, but are 2 and 1$"):
        q.set_shape([2])
    with pytest.raises(ValueError, match=re.escape("Dimension 0 in both shapes must be equal, but are 2 and 3. "
                                                   "Shapes are [2] and [3].")):
        tf.constant([1.0, 2.0]).set_shape([3])


def test_tensor_python_protocols(g: Graph) -> None:
    x = tf.constant([[1, 2], [3, 4], [5, 6]])
    y = tf.constant([[1, 2], [3, 4], [5, 6]])
    assert x == x and x != y and not (x == y) and hash(x) == hash(x) and {x: 1}[x] == 1
    with pytest.raises(TypeError, match=re.escape("Using a symbolic `tf.Tensor` as a Python `bool` " + _NOT_ALLOWED)):
        bool(x)
    for t in [x, tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.float32), tf.constant(1.0)]:
        # TF never iterates a graph tensor, whatever its shape; tf.unstack splits one.
        with pytest.raises(TypeError, match=re.escape("Iterating over a symbolic `tf.Tensor` " + _NOT_ALLOWED)):
            iter(t)
        with pytest.raises(TypeError, match=re.escape(f"len is not well defined for a symbolic Tensor ({t.name}). "
                                                      "Please call `x.shape` rather than `len(x)` for shape "
                                                      "information.")):
            len(t)
    with pytest.raises(NotImplementedError, match=re.escape(
            "Cannot convert a symbolic tf.Tensor (Const:0) to a numpy array. This error may indicate that you're "
            "trying to pass a Tensor to a NumPy call, which is not supported.")):
        np.array(x)
    with pytest.raises(TypeError, match=r"^list indices must be integers or slices, not \w*Tensor$"):
        [1, 2][tf.constant(1)]


# -- operator overloads -------------------------------------------------------------------------------


def _summary(t: tf.Tensor) -> tuple:
    return t.op.name, t.op.type, t.dtype.name, [i.name for i in t.op.inputs]


def test_float_operators(g: Graph) -> None:
    x, y = tf.constant([1.0, 2.0], name="x"), tf.constant([3.0, 4.0], name="y")
    results = [x + y, x - y, x * y, x / y, x // y, x % y, x ** y, x < y, x <= y, x > y, x >= y, -x, abs(x)]
    assert [_summary(t) for t in results] == [
        ("add", "AddV2", "float32", ["x:0", "y:0"]), ("sub", "Sub", "float32", ["x:0", "y:0"]),
        ("mul", "Mul", "float32", ["x:0", "y:0"]), ("truediv", "RealDiv", "float32", ["x:0", "y:0"]),
        ("floordiv", "FloorDiv", "float32", ["x:0", "y:0"]), ("mod", "FloorMod", "float32", ["x:0", "y:0"]),
        ("pow", "Pow", "float32", ["x:0", "y:0"]), ("Less", "Less", "bool", ["x:0", "y:0"]),
        ("LessEqual", "LessEqual", "bool", ["x:0", "y:0"]), ("Greater", "Greater", "bool", ["x:0", "y:0"]),
        ("GreaterEqual", "GreaterEqual", "bool", ["x:0", "y:0"]), ("Neg", "Neg", "float32", ["x:0"]),
        ("Abs", "Abs", "float32", ["x:0"])]
    with tf.name_scope("s"):
        assert _summary(x + 1) == ("s/add", "AddV2", "float32", ["x:0", "s/add/y:0"])
    assert _summary(x / 2) == ("truediv_1", "RealDiv", "float32", ["x:0", "truediv_1/y:0"])


def test_bool_and_matmul_operators(g: Graph) -> None:
    p, q = tf.constant([True, False], name="p"), tf.constant([False, False], name="q")
    assert [_summary(t) for t in [p & q, p | q, p ^ q, ~p, True & p, False | p]] == [
        ("and", "LogicalAnd", "bool", ["p:0", "q:0"]), ("or", "LogicalOr", "bool", ["p:0", "q:0"]),
        ("xor", "LogicalAnd", "bool", ["xor/LogicalOr:0", "xor/LogicalNot:0"]),
        ("LogicalNot", "LogicalNot", "bool", ["p:0"]), ("and_1", "LogicalAnd", "bool", ["and_1/x:0", "p:0"]),
        ("or_1", "LogicalOr", "bool", ["or_1/x:0", "p:0"])]
    a, b = tf.constant([[1.0, 2.0]], name="a"), tf.constant([[3.0], [4.0]], name="b")
    m = a @ b
    assert (m.op.name, m.op.type, m.shape.as_list()) == ("matmul", "MatMul", [1, 1])
    n = np.ones((2, 1), np.float32) @ a
    assert _summary(n) == ("matmul_1", "MatMul", "float32", ["matmul_1/x:0", "a:0"])
    assert n.shape.as_list() == [2, 2]
    assert ([[1.0], [2.0]] @ a).shape.as_list() == [2, 2]


def test_reflected_operators(g: Graph) -> None:
    x = tf.constant([1.0, 2.0], name="x")
    results = [1 + x, 1 - x, 2 * x, 1 / x, 1 // x, 1 % x, 2 ** x, 1.5 + x]
    assert [(t.op.name, t.op.type, [i.name for i in t.op.inputs]) for t in results] == [
        ("add", "AddV2", ["add/x:0", "x:0"]), ("sub", "Sub", ["sub/x:0", "x:0"]),
        ("mul", "Mul", ["mul/x:0", "x:0"]),
        ("truediv", "RealDiv", ["truediv/x:0", "x:0"]), ("floordiv", "FloorDiv", ["floordiv/x:0", "x:0"]),
        ("mod", "FloorMod", ["mod/x:0", "x:0"]), ("pow", "Pow", ["pow/x:0", "x:0"]),
        ("add_1", "AddV2", ["add_1/x:0", "x:0"])]
    array = np.array([1.0, 2.0], dtype=np.float32)
    for result, op_type in [(array + x, "AddV2"), (array - x, "Sub"), (array * x, "Mul"), (array / x, "RealDiv"),
                            (array // x, "FloorDiv"), (array % x, "FloorMod"), (array ** x, "Pow"),
                            (np.array([1.0, 2.0]) + x, "AddV2"), (np.float32(2) * x, "Mul")]:
        assert isinstance(result, tf.Tensor) and (result.op.type, result.dtype) == (op_type, tf.float32)
    i = tf.constant([1, 2], name="i")
    assert [(t.op.type, [s.name for s in t.op.inputs]) for t in [i < 1, 1 < i]] == \
        [("Less", ["i:0", "Less/y:0"]), ("Greater", ["i:0", "Greater/y:0"])]


def test_integer_bitwise_operators(g: Graph) -> None:
    x, y = tf.constant([1, 2], name="x"), tf.constant([3, 4], name="y")
    assert [_summary(t) for t in [x & y, x | y, x ^ y, ~x]] == [
        ("and/BitwiseAnd", "BitwiseAnd", "int32", ["x:0", "y:0"]),
        ("or/BitwiseOr", "BitwiseOr", "int32", ["x:0", "y:0"]),
        ("xor/BitwiseXor", "BitwiseXor", "int32", ["x:0", "y:0"]), ("Invert", "Invert", "int32", ["x:0"])]


@pytest.mark.parametrize("build, message", [
    (lambda i, f: i + 1.5, "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."),
    (lambda i, f: i + f, "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."),
    (lambda i, f: f + i, "Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of argument 'x'."),
    (lambda i, f: f + "a",
     "Input 'y' of 'AddV2' Op has type string that does not match type float32 of argument 'x'."),
    (lambda i, f: f + object(), "Failed to convert elements of <object object at"),
    (lambda i, f: f & f, "Value passed to parameter 'x' has DataType float32 not in list of allowed values: int8, "
                         "int16, int32, int64, uint8, uint16, uint32, uint64"),
])
def test_operator_dtype_errors(g: Graph, build: object, message: str) -> None:
    with pytest.raises(TypeError) as info:
        build(tf.constant([1, 2], name="i"), tf.constant(1.5, name="f"))
    assert str(info.value).startswith(message)


def test_operator_errors(g: Graph) -> None:
    x = tf.constant([1.0, 2.0], name="x")
    with pytest.raises(ValueError, match="^None values not supported.$"):
        x + None
    with pytest.raises(TypeError, match="^Value passed to parameter 'x' has DataType bool not in list of allowed "
                                        "values: bfloat16, float16, float32, float64, "):
        tf.constant([True]) + tf.constant([True])
    with tf.Graph().as_default():
        y = tf.constant(1.0)
    with pytest.raises(ValueError, match=re.escape('Tensor("Const:0", shape=(), dtype=float32) must be from the same '
                                                   'graph as Tensor("x:0", shape=(2,), dtype=float32) (graphs are')):
        x + y


# -- convert_to_tensor --------------------------------------------------------------------------------


def test_convert_numpy_keeps_dtype(g: Graph) -> None:
    values = [np.array([1, 2], np.int64), np.array([1.0]), np.array([1], np.uint8), np.array(True), np.float16(1),
              np.array([b"a"]), np.array(["ab"]), np.int32(3), np.array([1 + 2j])]
    assert [(t.dtype.name, t.shape.as_list(), t.op.type) for t in map(tf.convert_to_tensor, values)] == [
        ("int64", [2], "Const"), ("float64", [1], "Const"), ("uint8", [1], "Const"), ("bool", [], "Const"),
        ("float16", [], "Const"), ("string", [1], "Const"), ("string", [1], "Const"), ("int32", [], "Const"),
        ("complex128", [1], "Const")]


@pytest.mark.parametrize("value, dtype, shape", [
    (1, "int32", []), (1.0, "float32", []), (True, "bool", []), ("s", "string", []), (b"b", "string", []),
    ([1, 2], "int32", [2]), ([1.0, 2], "float32", [2]), ([[1], [2]], "int32", [2, 1]), ([True], "bool", [1]),
    (2**31, "int64", []), (2**31 - 1, "int32", []), (-2**31, "int32", []), (-2**31 - 1, "int64", []),
    ([1, 2**40], "int64", [2]), (1j, "complex128", []), ([], "float32", [0]), ([[]], "float32", [1, 0]),
    ((1, 2), "int32", [2]), (2**63, "uint64", []),
])
def test_convert_python_values(g: Graph, value: object, dtype: str, shape: list) -> None:
    t = tf.convert_to_tensor(value)
    assert (t.dtype.name, t.shape.as_list()) == (dtype, shape)


def test_convert_with_dtype(g: Graph) -> None:
    cases = [(1, tf.float32), (1, tf.int64), (1.0, tf.float64), ([1, 2], tf.float16), (True, tf.bool),
             (np.array([1, 2], np.int32), tf.int32), (1, tf.uint8), ("a", tf.string), (1, "float32"),
             (1, np.float64), (np.array([1], np.int32), tf.float32)]
    assert [tf.convert_to_tensor(v, dtype=d).dtype for v, d in cases] == \
        [tf.float32, tf.int64, tf.float64, tf.float16, tf.bool, tf.int32, tf.uint8, tf.string, tf.float32,
         tf.float64, tf.float32]
    for value, dtype, message in [(1.5, tf.int32, "Expected int32, but got 1.5 of type 'float'."),
                                  (1, tf.string, "Expected string, but got 1 of type 'int'."),
                                  (1, tf.bool, "Expected bool, but got 1 of type 'int'.")]:
        with pytest.raises(TypeError) as info:
            tf.convert_to_tensor(value, dtype=dtype)
        assert str(info.value) == message
    a = tf.constant(1.0, name="a")
    assert tf.convert_to_tensor(a, dtype=tf.float32) is a
    with pytest.raises(ValueError) as info:
        tf.convert_to_tensor(a, dtype=tf.int32)
    assert str(info.value) == ("Tensor conversion requested dtype int32 for Tensor with dtype float32: "
                               "<tf.Tensor 'a:0' shape=() dtype=float32>")


def test_convert_with_preferred_dtype(g: Graph) -> None:
    cases = [(1, tf.float32), (1.5, tf.int32), ("a", tf.int32), (1, tf.int64),
             (np.array([1], np.int32), tf.int64), (True, tf.int32)]
    assert [tf.convert_to_tensor(v, preferred_dtype=d).dtype for v, d in cases] == \
        [tf.float32, tf.float32, tf.string, tf.int64, tf.int64, tf.int32]
    assert tf.convert_to_tensor(1, dtype_hint=tf.float64).dtype == tf.float64
    a = tf.constant(1.0)
    assert tf.convert_to_tensor(a, preferred_dtype=tf.int32) is a
    names = [tf.convert_to_tensor(1, name=n).op.name for n in ["foo", "foo", None]]
    assert names == ["foo", "foo_1", "Const_8"]  # every successful conversion above made a Const


def test_convert_unconvertible_values(g: Graph) -> None:
    with pytest.raises(ValueError, match="^None values not supported.$"):
        tf.convert_to_tensor(None)
    with pytest.raises(TypeError, match=re.escape(" to Tensor. Consider casting elements to a supported type. See "
                                                  "https://www.tensorflow.org/api_docs/python/tf/dtypes for "
                                                  "supported TF dtypes.")):
        tf.convert_to_tensor(object())
    with pytest.raises(TypeError, match="^Expected float32, but got <object object at"):
        tf.convert_to_tensor(object(), dtype=tf.float32)


def test_convert_tensor_shape(g: Graph) -> None:
    assert [(t.dtype, t.shape.as_list(), t.op.type) for t in
            [tf.convert_to_tensor(tf.TensorShape([2, 3])), tf.convert_to_tensor(tf.TensorShape([]))]] == \
        [(tf.int32, [2], "Const"), (tf.int32, [0], "Const")]
    assert tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.int64).dtype == tf.int64
    with pytest.raises(ValueError, match=re.escape("Cannot convert a partially known TensorShape (?, 3) to a "
                                                   "Tensor.")):
        tf.convert_to_tensor(tf.TensorShape([None, 3]))


def test_register_tensor_conversion_function(g: Graph) -> None:
    calls = []

    class Boxed:
        def __init__(self, value: int) -> None:
            self.value = value

    def to_tensor(value: Boxed, dtype: object = None, name: str | None = None, as_ref: bool = False) -> tf.Tensor:
        calls.append((dtype, name, as_ref))
        return tf.constant(value.value, dtype=dtype, name=name)

    tf.register_tensor_conversion_function(Boxed, to_tensor)
    assert (tf.convert_to_tensor(Boxed(3)).op.name, tf.convert_to_tensor(Boxed(3), tf.float32, "cc").op.name) == \
        ("Const", "cc")
    assert tf.convert_to_tensor(Boxed(3), preferred_dtype=tf.int64).dtype == tf.int64
    t = tf.add(Boxed(1), Boxed(2))
    assert (t.dtype, [i.name for i in t.op.inputs]) == (tf.int32, ["Add/x:0", "Add/y:0"])
    assert calls[:3] == [(None, None, False), (tf.float32, "cc", False), (tf.int64, None, False)]

    class Low:
        pass

    tf.register_tensor_conversion_function(Low, lambda value, dtype=None, name=None, as_ref=False:
                                           tf.constant(1, name="low"), priority=200)
    tf.register_tensor_conversion_function(Low, lambda value, dtype=None, name=None, as_ref=False:
                                           tf.constant(1, name="high"), priority=10)
    assert tf.convert_to_tensor(Low()).op.name == "high"


def test_register_tensor_conversion_function_errors(g: Graph) -> None:
    with pytest.raises(TypeError, match="^Argument `conversion_func` must be callable. Received 3.$"):
        tf.register_tensor_conversion_function(type("A", (), {}), 3)
    with pytest.raises(TypeError, match="^Argument `base_type` must be a type or a tuple of types. Obtained: 3$"):
        tf.register_tensor_conversion_function(3, lambda *args, **kwargs: None)

    def register(returns: object) -> type:
        cls = type("Custom", (), {})
        tf.register_tensor_conversion_function(cls, lambda value, dtype=None, name=None, as_ref=False: returns)
        return cls

    with pytest.raises(RuntimeError, match=r"^Conversion function <function .*> for type <class '.*Custom'> "
                                           "returned non-Tensor: 3$"):
        tf.convert_to_tensor(register(3)())
    with pytest.raises(RuntimeError, match=r"^Conversion function <function .*> for type <class '.*Custom'> "
                                           "returned incompatible dtype: requested = float32, actual = int32$"):
        tf.convert_to_tensor(register(tf.constant(1))(), dtype=tf.float32)
    with pytest.raises(TypeError, match="^Failed to convert elements of <.*Custom object at"):
        tf.convert_to_tensor(register(NotImplemented)())


# -- op creation --------------------------------------------------------------------------------------


def test_op_dtype_inference_errors(g: Graph) -> None:
    i, f = tf.constant(1, name="i"), tf.constant(1.0, name="f")
    cases = [
        (lambda: tf.add(i, f), "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument "
                               "'x'."),
        (lambda: tf.add(i, f, name="myadd"), "Input 'y' of 'AddV2' Op has type float32 that does not match type "
                                             "int32 of argument 'x'."),
        (lambda: tf.subtract(i, 1.5), "Expected int32 passed to parameter 'y' of op 'Sub', got 1.5 of type 'float' "
                                      "instead. Error: Expected int32, but got 1.5 of type 'float'."),
        (lambda: tf.logical_not(f), "Input 'x' of 'LogicalNot' Op has type float32 that does not match expected type "
                                    "of bool."),
        (lambda: tf.logical_not(1.0), "Expected bool passed to parameter 'x' of op 'LogicalNot', got 1.0 of type "
                                      "'float' instead. Error: Expected bool, but got 1.0 of type 'float'."),
        (lambda: tf.reduce_sum(f, axis=[0.5]), "Value passed to parameter 'reduction_indices' has DataType float32 "
                                               "not in list of allowed values: int32, int64"),
    ]
    for build, message in cases:
        with pytest.raises(TypeError) as info:
            build()
        assert str(info.value) == message
    with pytest.raises(ValueError, match="^Tried to convert 'x' to a tensor and failed. Error: None values not "
                                         "supported.$"):
        tf.logical_not(None)
    with pytest.raises(TypeError, match="^Value passed to parameter 'a' has DataType bool not in list of allowed "
                                        "values: bfloat16, float16, float32, float64, int32, int64, "):
        tf.matmul(tf.constant([[True]]), tf.constant([[True]]))


def test_op_type_attr_defaults_and_names(g: Graph) -> None:
    x = tf.constant([[1.0]], name="x")
    s = tf.reduce_sum(x, axis=[])  # `[]` is float32 until the attr's default int32 takes over
    assert s.op.get_attr("Tidx") == tf.int32
    assert [t.name for t in s.op.inputs] == ["x:0", "Sum/reduction_indices_1:0"]
    assert tf.reduce_sum(x, axis=np.array([0], np.int64)).op.get_attr("Tidx") == tf.int64
    assert [tf.matmul(x, x).op.name, tf.matmul(x, x, name="m").op.name, tf.matmul(x, x, name="m").op.name] == \
        ["MatMul", "m", "m_1"]
    a = tf.constant(1.0, name="a")
    with tf.name_scope("s"):
        assert (tf.identity(a).op.name, tf.identity(a, name="c").op.name) == ("s/Identity", "s/c")
    op = g.create_op("Identity", [a], [tf.float32], name="myid")
    assert (op.name, op.type, op.outputs[0].dtype, op.get_attr("T")) == \
        ("myid", "Identity", tf.float32, tf.float32)
    assert g.create_op("Identity", [a], [tf.float32], name="myid").name == "myid_1"
    with pytest.raises(RuntimeError, match="^Op type not registered 'NotAnOp' in binary running on "):
        g.create_op("NotAnOp", [a], [tf.float32])


def test_shape_function_errors(g: Graph) -> None:
    a = tf.constant([[1.0, 2.0]], name="a")
    with pytest.raises(ValueError) as info:
        tf.add(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0]))
    assert str(info.value) == ("Dimensions must be equal, but are 3 and 2 for '{{node Add}} = AddV2[T=DT_FLOAT]"
                               "(Const, Const_1)' with input shapes: [3], [2].")
    with pytest.raises(ValueError, match=re.escape("Dimensions must be equal, but are 2 and 1 for '{{node MatMul}} = "
                                                   "MatMul[T=DT_FLOAT, ")) as info:
        tf.matmul(a, a)
    assert str(info.value).endswith("](a, a)' with input shapes: [1,2], [1,2].")
    assert _names(g.get_operations()) == ["a", "Const", "Const_1"]  # the failed ops are gone
    p, q = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [4, None])
    with pytest.raises(ValueError, match=re.escape("Dimensions must be equal, but are 3 and 4 for '{{node mm}} = ")):
        tf.matmul(p, q, name="mm")
    with pytest.raises(ValueError, match=re.escape("Shape must be rank 2 but is rank 1 for '{{node MatMul_1}} = ")):
        tf.matmul(tf.constant([1.0, 2.0]), a)
    with pytest.raises(ValueError, match=re.escape(
            "Cannot reshape a tensor with 3 elements to shape [2,2] (4 elements) for '{{node rr}} = "
            "Reshape[T=DT_FLOAT, Tshape=DT_INT32](Const_3, rr/shape)' with input shapes: [3], [2]")):
        tf.reshape(tf.constant([1.0, 2.0, 3.0]), [2, 2], name="rr")
    with tf.control_dependencies([a]), pytest.raises(ValueError, match=re.escape(
            "Invalid reduction dimension 3 for input with 2 dimensions. for '{{node Sum}} = Sum[T=DT_FLOAT, "
            "Tidx=DT_INT32, keep_dims=true](a, Sum/reduction_indices)' with input shapes: [1,2], []")):
        tf.reduce_sum(a, axis=3, keepdims=True)


@pytest.fixture
def list_ops() -> Iterator[tuple[op_registry.Op, op_registry.Op, op_registry.Op]]:
    """Ops with TF's AddN, IdentityN and Conv2D signatures, registered for one test."""

    def _conv_shape(op: tf.Operation) -> list:
        raise ValueError("Depth of input (3) is not a multiple of input depth of filter (4)")

    ops = (op_registry.Op("TestGraphAddN", inputs=["inputs: N * T"], outputs=["sum: T"],
                          attrs=["N: int >= 1", "T: {float, int32, int64}"]),
           op_registry.Op("TestGraphIdentityN", inputs=["input: T"], outputs=["output: T"],
                          attrs=["T: list(type) >= 1"]),
           op_registry.Op("TestGraphConv2D", inputs=["input: T", "filter: T"], outputs=["output: T"],
                          attrs=["T: {half, bfloat16, float, double, int32}", "strides: list(int)",
                                 "use_cudnn_on_gpu: bool = true", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
                                 "explicit_paddings: list(int) = []",
                                 "data_format: {'NHWC', 'NCHW'} = 'NHWC'", "dilations: list(int) = [1, 1, 1, 1]",
                                 "tolerance: float = 0.123456789"]))
    ops[2].shape(_conv_shape)
    try:
        yield ops
    finally:
        for op in ops:
            op_registry._ops.pop(op.name)


def test_list_inputs(g: Graph, list_ops: tuple) -> None:
    add_n, identity_n, _ = list_ops
    r = add_n(inputs=[tf.constant(1.0), 2])
    assert (r.dtype, [t.name for t in r.op.inputs], r.op.get_attr("N")) == \
        (tf.float32, ["Const:0", "TestGraphAddN/inputs_1:0"], 2)
    r = add_n(inputs=[1, 2])
    assert (r.dtype, [t.name for t in r.op.inputs]) == (tf.int32, ["TestGraphAddN_1/inputs_0:0",
                                                                   "TestGraphAddN_1/inputs_1:0"])
    outs = identity_n(input=[tf.constant(1.0), 2, "a"])
    assert [t.dtype for t in outs] == [tf.float32, tf.int32, tf.string]
    assert outs[0].op.get_attr("T") == [tf.float32, tf.int32, tf.string]
    cases = [
        (lambda: add_n(inputs=[tf.constant(1.0), tf.constant(2)]), TypeError,
         "Tensors in list passed to 'inputs' of 'TestGraphAddN' Op have types [float32, int32] that don't all match."),
        (lambda: add_n(inputs=[tf.constant(1), 2.5]), TypeError,
         "Tensors in list passed to 'inputs' of 'TestGraphAddN' Op have types [int32, float32] that don't all match."),
        (lambda: add_n(inputs=[]), ValueError,
         "List argument 'inputs' to 'TestGraphAddN' Op with length 0 shorter than minimum length 1."),
        (lambda: add_n(inputs=tf.constant(1.0, name="c")), TypeError,
         "Expected list for 'inputs' argument to 'test_graph_add_n' Op, not <tf.Tensor 'c:0' shape=() "
         "dtype=float32>."),
        (lambda: add_n(inputs=[True, False]), TypeError,
         "Value passed to parameter 'inputs' has DataType bool not in list of allowed values: float32, int32, int64"),
    ]
    for build, error, message in cases:
        with pytest.raises(error) as info:
            build()
        assert str(info.value) == message
    with pytest.raises(TypeError, match=re.escape(
            "Tensors in list passed to 'input' of 'TestGraphIdentityN' Op have types [float32, <NOT CONVERTIBLE TO "
            "TENSOR>] that are invalid. Tensors: [<tf.Tensor 'Const_5:0' shape=() dtype=float32>, <object object")):
        identity_n(input=[tf.constant(1.0), object()])


def test_shape_error_summarizes_attrs(g: Graph, list_ops: tuple) -> None:
    conv = list_ops[2]
    x, w = tf.placeholder(tf.float32, [1, 4, 4, 3]), tf.placeholder(tf.float32, [2, 2, 4, 1])
    with pytest.raises(ValueError) as info:
        conv(x, w, strides=[1, 1, 1, 1], padding="SAME", name="c")
    assert str(info.value) == (
        "Depth of input (3) is not a multiple of input depth of filter (4) for '{{node c}} = TestGraphConv2D["
        'T=DT_FLOAT, data_format="NHWC", dilations=[1, 1, 1, 1], explicit_paddings=[], padding="SAME", '
        "strides=[1, 1, 1, 1], tolerance=0.123456791, use_cudnn_on_gpu=true](Placeholder, Placeholder_1)' with "
        "input shapes: [1,4,4,3], [2,2,4,1].")
