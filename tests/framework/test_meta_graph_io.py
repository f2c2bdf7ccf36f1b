"""`tf.train.export_meta_graph` / `tf.train.import_meta_graph`, against MetaGraphDefs of TF 2.21.

The reference `.meta` was written by TF 2.21; the results TF 2.21 gives importing the files we export (the
same program as `_our_graph`) were recorded by running it on them: variables, trainables, collections and
values as asserted below, and a Saver from the SaverDef-less file (our Saver is not built yet, so ours
returns None there).
"""

import pathlib
import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.framework import op_registry

META = pathlib.Path(__file__).resolve().parents[3] / "shared" / "reference" / "checkpoint_v2" / "model.ckpt-42.meta"


def _reference_meta():
    meta = protos.MetaGraphDef.FromString(META.read_bytes())
    missing = {n.op for n in meta.graph_def.node} - set(op_registry.registered_ops())
    if missing:  # the saver's io ops come with the Saver: import the rest of the graph meanwhile
        kept = [n for n in meta.graph_def.node if n.op not in missing and not n.name.startswith("save/")]
        del meta.graph_def.node[:]
        meta.graph_def.node.extend(kept)
    return meta


def test_a_meta_graph_written_by_tf_imports_with_its_variables():
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(_reference_meta())
        assert [(v.name, type(v).__name__) for v in tf.global_variables()] == [
            ("dense/kernel:0", "RefVariable"), ("dense/bias:0", "RefVariable"), ("scalar64:0", "RefVariable"),
            ("global_step:0", "RefVariable")]
        assert [v.name for v in tf.trainable_variables()] == ["dense/kernel:0", "dense/bias:0", "scalar64:0"]
        assert g.get_collection("global_step") == [tf.global_variables()[3]]  # the same object
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kernel, bias, scalar, step = sess.run(tf.global_variables())
    assert (kernel.tolist(), bias.tolist(), float(scalar), int(step)) == ([[0, 1, 2], [3, 4, 5]], [7, 8], 3.5, 0)


def _our_graph():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([[1., 2.]], name="outer/v")
        w = tf.Variable(3, name="w", trainable=False)
        loss = tf.reduce_sum(v * tf.cast(w, tf.float32), name="loss")
        tf.add_to_collection("train_op", loss.op)
        tf.add_to_collection("floats", 1.5)
    return g


@pytest.mark.parametrize("options, scope, variables, trainables, train_op", [
    ({}, None, ["outer/v:0", "w:0"], ["outer/v:0"], ["loss"]),
    ({"as_text": True, "strip_default_attrs": True}, "imp", ["imp/outer/v:0", "imp/w:0"], ["imp/outer/v:0"],
     ["imp/loss"]),
    ({"export_scope": "outer"}, "sc", ["sc/v:0"], ["sc/v:0"], []),
])
def test_our_meta_graph_round_trips_as_tf_imports_it(tmp_path, options, scope, variables, trainables, train_op):
    path = str(tmp_path / "sub" / "model.meta")
    with _our_graph().as_default():
        exported = tf.train.export_meta_graph(path, **options)
    with tf.Graph().as_default() as g:
        assert isinstance(tf.train.import_meta_graph(path, import_scope=scope), tf.train.Saver)
        assert [v.name for v in tf.global_variables()] == variables
        assert [v.name for v in tf.trainable_variables()] == trainables
        assert [op.name for op in g.get_collection("train_op")] == train_op
        assert g.get_collection("floats") == [1.5]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.global_variables())[0].tolist() == [[1.0, 2.0]]
            if train_op:
                assert sess.run(g.get_collection("train_op")[0].outputs[0]) == 9.0
    assert exported.meta_info_def.stripped_default_attrs == bool(options.get("strip_default_attrs"))
    assert [op.name for op in exported.meta_info_def.stripped_op_list.op] == sorted(
        {n.op for n in exported.graph_def.node})


def test_export_as_tf_writes_it():
    with _our_graph().as_default():
        scoped = tf.train.export_meta_graph(export_scope="outer")
        full = tf.train.export_meta_graph(clear_devices=True)
    # TF 2.21's scoped export of the same graph
    assert sorted(scoped.collection_def) == ["floats", "trainable_variables", "variables"]  # no train_op
    assert [n.name for n in scoped.graph_def.node] == ["v/initial_value", "v", "v/Assign", "v/read"]
    assert list(scoped.graph_def.node[3].attr["_class"].list.s) == [b"loc:@v"]
    shapes = {n.name: n.attr["_output_shapes"].list.shape for n in full.graph_def.node}
    assert [[d.size for d in s.dim] for s in shapes["outer/v"]] == [[1, 2]] and list(shapes["loss"][0].dim) == []
    v_def = protos.VariableDef.FromString(full.collection_def["variables"].bytes_list.value[0])
    assert (v_def.variable_name, v_def.snapshot_name, v_def.initializer_name) == (
        "outer/v:0", "outer/v/read:0", "outer/v/Assign")


def test_import_meta_graph_errors_as_tf(tmp_path):
    with pytest.raises(OSError, match=f"File does not exist. Received: {tmp_path}/none.meta."):
        tf.train.import_meta_graph(str(tmp_path / "none.meta"))
    (tmp_path / "bad.meta").write_text("garbage")
    with pytest.raises(OSError, match=re.escape(f'Cannot parse file {tmp_path}/bad.meta: 1:1 : Message type '
                                                '"tensorflow.MetaGraphDef" has no field named "garbage"..')):
        tf.train.import_meta_graph(str(tmp_path / "bad.meta"))


def test_export_scope_takes_a_str_item_for_a_node_name_as_tf():
    """TF's _should_include_node: a collection's str outside `export_scope` is left out like a node; bytes and
    numbers stay (recorded from TF 2.21)."""
    with tf.Graph().as_default():
        with tf.name_scope("model"):
            y = tf.constant(1.0, name="y")
        for key, items in [("ys", [y]), ("strs", ["hello", "model/x"]), ("raw", [b"hi"]), ("ints", [3]),
                           ("outside", ["other"])]:
            for item in items:
                tf.add_to_collection(key, item)
        scoped = tf.train.export_meta_graph(export_scope="model")
        assert sorted(scoped.collection_def) == ["ints", "raw", "strs", "ys"]
        assert list(scoped.collection_def["strs"].bytes_list.value) == [b"model/x"]
        assert list(scoped.collection_def["ys"].node_list.value) == ["y:0"]
        whole = tf.train.export_meta_graph()
        assert list(whole.collection_def["strs"].bytes_list.value) == [b"hello", b"model/x"]


def test_imported_variables_clear_devices():
    with _our_graph().as_default() as g:
        g.get_operation_by_name("w")._set_device("/device:CPU:0")
        meta = tf.train.export_meta_graph()
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta, clear_devices=True)
        assert g.get_operation_by_name("w").device == ""
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta)
        assert g.get_operation_by_name("w").device == "/device:CPU:0"
    assert np.isclose(1.5, meta.collection_def["floats"].float_list.value[0])


def test_imported_nodes_drop_the_exporters_output_shapes(tmp_path):
    """export_meta_graph records `_output_shapes`; TF's importer drops them, so the imported graph exports
    again and `get_attr` finds none (TF 2.21's message)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        tf.identity(x, name="y")
        meta = tf.train.export_meta_graph(filename=str(tmp_path / "m.meta"), clear_devices=True)
    assert "_output_shapes" in [n for n in meta.graph_def.node if n.name == "x"][0].attr
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(str(tmp_path / "m.meta"), import_scope="imported")
        assert [n.name for n in g.as_graph_def().node] == ["imported/x", "imported/y"]
        with pytest.raises(ValueError, match="^Operation 'imported/x' has no attr named '_output_shapes'.$"):
            g.get_operation_by_name("imported/x").get_attr("_output_shapes")


def test_import_meta_graph_restores_trainable_variables_first_then_by_name(tmp_path):
    """The imported graph's collection order, as TF 2.21 gives it: TRAINABLE_VARIABLES, then sorted."""
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        tf.add_to_collection("outs", w)
        tf.add_to_collection("aaa", w)
        tf.train.export_meta_graph(str(tmp_path / "m.meta"))
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(str(tmp_path / "m.meta"))
        assert g.get_all_collection_keys() == ["trainable_variables", "aaa", "outs", "variables"]


def test_plain_collections_under_an_import_scope_as_tf():
    """TF 2.21 passes bytes and float collection values through prepend_name_scope: text comes back as a
    str name under the scope (unscoped, the bytes as stored), floats and ints unchanged."""
    with tf.Graph().as_default():
        tf.add_to_collection("strs", "abc")
        tf.add_to_collection("strs", b"de")
        tf.add_to_collection("floats", 1.5)
        tf.add_to_collection("ints", 3)
        meta = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta)
        assert tf.get_collection("strs") == [b"abc", b"de"]
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta, import_scope="s")
        assert tf.get_collection("strs") == ["s/abc", "s/de"]
        assert tf.get_collection("floats") == [1.5] and tf.get_collection("ints") == [3]
