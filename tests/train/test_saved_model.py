"""SavedModel, TF1's API: builder, loader, simple_save, signatures, tensor infos and the format's constants.

tests/fixtures/tf_saved_model was written by TF 2.21's `SavedModelBuilder` (tests' `_build_model` below, run
under TF): a `serve` meta graph with a predict signature, an asset feeding a local variable through the main
op, and a `train`+`gpu` meta graph sharing the variables. Its expected outputs are TF's, recorded as literals.
A SavedModel written here was checked to load in real TF (`tf.compat.v1.saved_model.loader.load`) with the
same outputs, its `variables/` files byte-identical to TF's and its SavedModel proto equal to TF's but for the
producer's git version.
"""

import os
import pathlib
import shutil

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "tf_saved_model"
X = np.array([[1, 2, 3], [-1, 0, 1]], np.float32)
Y = np.array([[32.5, 43.0], [8.5, 7.0]], np.float32)  # TF's: x @ (2 * arange(6).reshape(3, 2)) + [0.5, -1]
TRAIN_W = np.array([[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]], np.float32)


def _build_model(export_dir, asset):
    """The fixture's program: a serving graph with an asset and a main op, then a second tagged graph."""
    with tf.Session(graph=tf.Graph()) as sess:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        b = tf.Variable([0.5, -1.0], name="b")
        loc = tf.Variable(7.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        y = tf.add(tf.matmul(x, w), b, name="y")
        z = tf.multiply(y, loc, name="z")
        path = tf.constant(asset, name="asset_path")
        tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, path)
        asset_var = tf.Variable(path, name="asset_var", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        content = tf.identity(asset_var, name="content")
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(w.assign(w * 2.0))
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        sig = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y, "z": z, "content": content})
        builder.add_meta_graph_and_variables(
            sess, [tf.saved_model.tag_constants.SERVING],
            signature_def_map={tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: sig},
            assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
            main_op=tf.local_variables_initializer())
    with tf.Session(graph=tf.Graph()):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.zeros((3, 2), np.float32), name="w")
        b = tf.Variable([0.0, 0.0], name="b")
        y = tf.add(tf.matmul(x, w), b, name="y2")
        builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING, "gpu"], signature_def_map={
            "train": tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})})
    return builder


def _check_model(export_dir, import_scope=None):
    with tf.Session(graph=tf.Graph()) as sess:
        meta_graph = tf.saved_model.loader.load(sess, ["serve"], str(export_dir), import_scope=import_scope)
        sig = meta_graph.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        assert sig.inputs["x"].name == "x:0"  # the returned MetaGraphDef is not scoped

        def tensor(info):
            return tf.saved_model.utils.get_tensor_from_tensor_info(info, import_scope=import_scope)

        out = sess.run({k: tensor(v) for k, v in sig.outputs.items()}, {tensor(sig.inputs["x"]): X})
        np.testing.assert_array_equal(out["y"], Y)
        np.testing.assert_array_equal(out["z"], Y * 7.0)  # `loc`, a local variable, initialized by the main op
        assert out["content"] == os.path.join(str(export_dir), "assets", "vocab.txt").encode()  # fed by the loader
        prefix = f"{import_scope}/" if import_scope else ""
        assert sorted(v.name for v in tf.global_variables()) == [f"{prefix}b:0", f"{prefix}w:0"]
    with tf.Session(graph=tf.Graph()) as sess:
        meta_graph = tf.saved_model.loader.load(sess, ["gpu", "train"], str(export_dir))
        assert list(meta_graph.signature_def) == ["train"]
        w, b = sess.run(["w:0", "b:0"])
        np.testing.assert_array_equal(w, TRAIN_W)
        np.testing.assert_array_equal(b, [0.5, -1.0])


def test_loads_a_savedmodel_tensorflow_wrote(tmp_path):
    export_dir = tmp_path / "model"
    shutil.copytree(FIXTURE, export_dir)
    _check_model(export_dir)
    _check_model(export_dir, import_scope="imported")


def test_builder_writes_tensorflows_layout_and_loads_back(tmp_path):
    asset = tmp_path / "vocab.txt"
    asset.write_text("a\nb\n")
    export_dir = tmp_path / "model"
    builder = _build_model(str(export_dir), str(asset))
    assert not (export_dir / "saved_model.pb").exists()  # nothing but variables and assets before save()
    assert builder.save() == os.path.join(str(export_dir), "saved_model.pb").encode()
    assert sorted(str(p.relative_to(export_dir)) for p in export_dir.rglob("*") if p.is_file()) == [
        "assets/vocab.txt", "saved_model.pb", "variables/variables.data-00000-of-00001",
        "variables/variables.index"]
    assert (export_dir / "variables" / "variables.index").read_bytes() == \
        (FIXTURE / "variables" / "variables.index").read_bytes()
    assert (export_dir / "variables" / "variables.data-00000-of-00001").read_bytes() == \
        (FIXTURE / "variables" / "variables.data-00000-of-00001").read_bytes()
    saved_model = protos.SavedModel.FromString((export_dir / "saved_model.pb").read_bytes())
    theirs = protos.SavedModel.FromString((FIXTURE / "saved_model.pb").read_bytes())
    assert saved_model.saved_model_schema_version == 1
    for ours_mg, theirs_mg in zip(saved_model.meta_graphs, theirs.meta_graphs, strict=True):
        assert ours_mg.meta_info_def.tags == theirs_mg.meta_info_def.tags
        assert ours_mg.signature_def == theirs_mg.signature_def
        assert ours_mg.saver_def == theirs_mg.saver_def
        assert ours_mg.collection_def == theirs_mg.collection_def
        assert [n.name for n in ours_mg.graph_def.node] == [n.name for n in theirs_mg.graph_def.node]
    _check_model(export_dir)
    _check_model(export_dir, import_scope="imported")


def test_simple_save_and_text_format(tmp_path):
    with tf.Session(graph=tf.Graph()) as sess:
        x = tf.placeholder(tf.float32, [None], name="x")
        v = tf.Variable(3.0, name="v")
        y = x * v
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, str(tmp_path / "simple"), {"x": x}, {"y": y})
        builder = tf.saved_model.Builder(str(tmp_path / "text"))
        builder.add_meta_graph_and_variables(sess, ["a", "b"])
        assert builder.save(as_text=True).endswith(b"saved_model.pbtxt")
    with tf.Session(graph=tf.Graph()) as sess:
        meta_graph = tf.saved_model.load(sess, [tf.saved_model.SERVING], str(tmp_path / "simple"))
        sig = meta_graph.signature_def[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert all(not node.device for node in meta_graph.graph_def.node)  # simple_save clears devices
        assert sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: [1.0, 2.0]}).tolist() == [3.0, 6.0]
    with tf.Session(graph=tf.Graph()) as sess:
        tf.saved_model.loader.load(sess, ["b", "a"], str(tmp_path / "text"))
        assert sess.run("v:0") == 3.0
    assert tf.saved_model.maybe_saved_model_directory(str(tmp_path / "text"))
    assert tf.saved_model.contains_saved_model(str(tmp_path / "simple"))
    assert not tf.saved_model.loader.maybe_saved_model_directory(str(tmp_path))


def test_model_without_variables(tmp_path):
    with tf.Session(graph=tf.Graph()) as sess:
        x = tf.placeholder(tf.int32, [2], name="x")
        y = tf.identity(x + 1, name="y")
        tf.saved_model.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"y": y})
    assert not os.listdir(tmp_path / "m" / "variables")
    with tf.Session(graph=tf.Graph()) as sess:
        meta_graph = tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "m"))
        assert not meta_graph.HasField("saver_def")
        assert sess.run("y:0", {"x:0": [1, 2]}).tolist() == [2, 3]


def test_builder_and_loader_errors(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "full"))
    with tf.Session(graph=tf.Graph()) as sess:
        x = tf.placeholder(tf.float32, name="x")
        builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "m"))
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["serve"])
        with pytest.raises(KeyError, match='"__saved_model_init_op" is reserved for initialization'):
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
                "__saved_model_init_op": tf.saved_model.predict_signature_def({"x": x}, {"x": x})})
        no_dtype = tf.saved_model.build_signature_def({"x": protos.TensorInfo(name="x:0")})
        with pytest.raises(AssertionError, match="must have the dtype field set"):
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"s": no_dtype})
        no_name = tf.saved_model.build_signature_def({"x": protos.TensorInfo(dtype=1)})
        with pytest.raises(AssertionError, match="must have one of the 'encoding' fields"):
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"s": no_name})
        with pytest.raises(TypeError, match="Expected init to be an Operation but got type <class 'str'> instead."):
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op="init")
        with pytest.raises(TypeError, match="must be of type constant"):
            builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=[tf.identity("p")])
        builder.add_meta_graph_and_variables(sess, ["serve"])
        with pytest.raises(AssertionError, match="has already been saved"):
            builder.add_meta_graph_and_variables(sess, ["serve"])
        builder.save()
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(RuntimeError, match=r"MetaGraphDef associated with tags 'train' could not be found in "
                                               r"SavedModel, with available tags '\[\{'serve'\}\]'"):
            tf.saved_model.loader.load(sess, ["train"], str(tmp_path / "m"))
        with pytest.raises(OSError, match="SavedModel file does not exist at"):
            tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "full"))


def test_assets_with_the_same_basename_are_kept_apart(tmp_path):
    for sub, text in (("a", "one"), ("b", "two")):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "vocab.txt").write_text(text)
    with tf.Session(graph=tf.Graph()) as sess:
        paths = [tf.constant(str(tmp_path / sub / "vocab.txt")) for sub in "ab"]
        builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "m"))
        builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=paths)
        builder.save()
    assert (tmp_path / "m" / "assets" / "vocab.txt").read_text() == "one"
    assert (tmp_path / "m" / "assets" / "vocab.txt_1").read_text() == "two"
    with tf.Session(graph=tf.Graph()) as sess:
        meta_graph = tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "m"))
    assets = [protos.AssetFileDef() for _ in range(2)]
    for asset, packed in zip(assets, meta_graph.collection_def["saved_model_assets"].any_list.value, strict=True):
        packed.Unpack(asset)
    assert [(a.filename, a.tensor_info.name) for a in assets] == [("vocab.txt", "Const:0"),
                                                                  ("vocab.txt_1", "Const_1:0")]


def test_signature_defs():
    examples = tf.placeholder(tf.string, [None], name="examples")
    scores = tf.placeholder(tf.float32, [None, 3], name="scores")
    classes = tf.placeholder(tf.string, [None, 3], name="classes")
    classify = tf.saved_model.classification_signature_def(examples, classes, scores)
    assert classify.method_name == tf.saved_model.CLASSIFY_METHOD_NAME
    assert sorted(classify.outputs) == ["classes", "scores"]
    assert classify.inputs["inputs"] == protos.TensorInfo(
        name="examples:0", dtype=7, tensor_shape=protos.TensorShapeProto(dim=[{"size": -1}]))
    regress = tf.saved_model.signature_def_utils.regression_signature_def(examples, tf.reduce_sum(scores, 1))
    assert (regress.method_name, list(regress.inputs), list(regress.outputs)) == (
        "tensorflow/serving/regress", ["inputs"], ["outputs"])
    predict = tf.saved_model.predict_signature_def({"s": scores}, {"c": classes})
    assert all(tf.saved_model.is_valid_signature(s) for s in (classify, regress, predict))
    assert not tf.saved_model.is_valid_signature(tf.saved_model.build_signature_def(
        {"inputs": tf.saved_model.build_tensor_info(scores)}, {"outputs": tf.saved_model.build_tensor_info(scores)},
        tf.saved_model.REGRESS_METHOD_NAME))
    assert not tf.saved_model.is_valid_signature(None)
    with_defaults = tf.saved_model.build_signature_def(defaults={"k": tf.constant(3)})
    assert tf.make_ndarray(with_defaults.defaults["k"]) == 3
    with pytest.raises(ValueError, match="Regression input tensors must be of type string. Found tensors with "
                                         "type 1."):
        tf.saved_model.regression_signature_def(scores, scores)
    with pytest.raises(ValueError, match="Classification `classes` and `scores` cannot both be None."):
        tf.saved_model.classification_signature_def(examples, None, None)
    with pytest.raises(ValueError, match="Classification scores must be a float Tensor."):
        tf.saved_model.classification_signature_def(examples, None, classes)
    with pytest.raises(ValueError, match="Prediction `outputs` cannot be None or empty."):
        tf.saved_model.predict_signature_def({"s": scores}, {})
    with pytest.raises(ValueError, match="Unable to convert object"):
        tf.saved_model.build_signature_def(defaults={"k": scores})


def test_tensor_infos_round_trip():
    with tf.Graph().as_default() as graph:
        sparse = tf.sparse_placeholder(tf.float32, name="sp")
        dense = tf.placeholder(tf.int64, [2, None], name="d")
        info = tf.saved_model.utils.build_tensor_info(sparse)
        assert info.WhichOneof("encoding") == "coo_sparse"
        assert (info.coo_sparse.values_tensor_name, info.coo_sparse.indices_tensor_name,
                info.coo_sparse.dense_shape_tensor_name) == ("sp/values:0", "sp/indices:0", "sp/shape:0")
        back = tf.saved_model.get_tensor_from_tensor_info(info, graph=graph)
        assert back.values is sparse.values and back.indices is sparse.indices
        assert tf.saved_model.get_tensor_from_tensor_info(tf.saved_model.build_tensor_info(dense)) is dense
        with pytest.raises(ValueError, match="Invalid TensorInfo.encoding: None."):
            tf.saved_model.get_tensor_from_tensor_info(protos.TensorInfo())


def test_main_op_initializes_locals_and_runs_the_restore():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        loc = tf.Variable(2.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        op = tf.saved_model.main_op.main_op()
        assert op.type == "NoOp" and sorted(i.name for i in op.control_inputs) == ["init", "init_1",
                                                                                   "init_all_tables"]
        restore = tf.train.Saver().saver_def.restore_op_name
        with_restore = tf.saved_model.main_op_with_restore(tf.get_default_graph().get_operation_by_name(restore))
        with tf.Session() as sess:
            sess.run(op)
            assert sess.run([v, loc]) == [1.0, 2.0]
        assert restore in [i.name for i in with_restore.control_inputs]


def test_public_names_and_constants():
    assert tf.saved_model.Builder is tf.saved_model.builder.SavedModelBuilder
    assert tf.saved_model.load is tf.saved_model.loader.load
    assert tf.saved_model.contains_saved_model is tf.saved_model.loader.maybe_saved_model_directory
    assert (tf.saved_model.tag_constants.SERVING, tf.saved_model.TRAINING, tf.saved_model.GPU,
            tf.saved_model.TPU) == ("serve", "train", "gpu", "tpu")
    assert (tf.saved_model.constants.SAVED_MODEL_FILENAME_PB, tf.saved_model.VARIABLES_DIRECTORY,
            tf.saved_model.ASSETS_KEY, tf.saved_model.MAIN_OP_KEY, tf.saved_model.LEGACY_INIT_OP_KEY) == (
        "saved_model.pb", "variables", "saved_model_assets", "saved_model_main_op", "legacy_init_op")
    assert tf.saved_model.signature_constants.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    assert tf.saved_model.signature_def_utils.build_signature_def is tf.saved_model.build_signature_def
