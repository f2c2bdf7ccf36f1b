"""Summary ops and tf.summary: the serialized Summary bytes are TF 2.21's, recorded for the same inputs."""

import hashlib
import zlib

import numpy as np
import pytest
from op_testing import check_tensor

import tensorweave.compat.v1 as tf
from tensorweave.ops import summary_ops

# Serialized Summary protos written by TF 2.21 (`tf.summary.*` in a TF1 graph) for the inputs of `_BUILDERS`.
TF_BYTES = {
    'scalar': b'\n\x0b\n\x04loss\x15\x00\x00\xc0?',
    'scalar_fam': b'\n\x17\n\x10train/train/loss\x15\x00\x00\x00@',
    'hist': b'\n\xe7\x01\n\x01h*\xe1\x01\t\x00\x00\x00\x00\x00\x00\x04\xc0\x11\x00\x00\x00\x00\x00\x00Y@\x19\x00\x00\x00\x00\x00\x00\x1c@!\x07\x00\x00\x00\x00\xb0Y@)\x00\x00\x00\x00h\x91\xc3@2X\xea6\x0fv\xa3\xef\x04\xc0w`<\x0ef\x08\x03\xc0\x00\x00\x00\x00\x00\x00\x00\x00\x11\xea-\x81\x99\x97q=\x08\x99i\x19\x15Z\xed?+\x14\xfa\xcd\xbe$\xf0?\r\x9c\xc5\xa0)U\t@u\xf8r\xca\xad\xdd\x0b@r;`\x14\xcexX@\xfe\xdai\x16I\xebZ@\xff\xff\xff\xff\xff\xff\xef\x7f:X\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00\x00',
    'hist_int': b'\n\xa8\x01\n\x02hi*\xa1\x01\t\x00\x00\x00\x00\x00\x00\xf0?\x11\x00\x00\x00\x00\x00\x00\x08@\x19\x00\x00\x00\x00\x00\x00\x10@!\x00\x00\x00\x00\x00\x00"@)\x00\x00\x00\x00\x00\x007@28\x08\x99i\x19\x15Z\xed?+\x14\xfa\xcd\xbe$\xf0?\xdc\x94\xcd.\x8du\xff?\xe0\x11\xf1\x0ctM\x01@h\xbc\x105\x9a\x07\x07@\r\x9c\xc5\xa0)U\t@\xff\xff\xff\xff\xff\xff\xef\x7f:8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\x00',
    'hist_empty': b'\n,\n\x02he*&\t\xff\xff\xff\xff\xff\xff\xef\x7f\x11\xff\xff\xff\xff\xff\xff\xef\xff2\x08\xff\xff\xff\xff\xff\xff\xef\x7f:\x08\x00\x00\x00\x00\x00\x00\x00\x00',
    'img_u8': b'\nf\n\nim/image/0"X\x08\x02\x10\x03\x18\x03"P\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x03\x00\x00\x00\x02\x08\x02\x00\x00\x00\x12\x16\xf1M\x00\x00\x00\x17IDAT\x08\x99cd`\xe7\x13\x15\x15\x15\x15\x15e\xb1\xb7\xb7\x87\xb0\x00\x10\x02\x01\xd4z\x8a\x86\xad\x00\x00\x00\x00IEND\xaeB`\x82\ng\n\nim/image/1"Y\x08\x02\x10\x03\x18\x03"Q\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x03\x00\x00\x00\x02\x08\x02\x00\x00\x00\x12\x16\xf1M\x00\x00\x00\x18IDAT\x08\x99c\xack\xed\x11\x15\x15\x15\x15\x15e\xdc{\xe44\x84\x05\x006\xe2\x04\xdaf\xbbi\xb8\x00\x00\x00\x00IEND\xaeB`\x82',
    'img_f': b'\n\\\n\timf/image"O\x08\x02\x10\x02\x18\x01"G\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x00\x00\x00\x00W\xddR\xf8\x00\x00\x00\x0eIDAT\x08\x99c0\xfe\xcf\xe4\xc3\x08\x00\x05\xa0\x01\x82\xd3\xe3Cz\x00\x00\x00\x00IEND\xaeB`\x82',
    'img_neg': b'\nf\n\x0bimn/image/0"W\x08\x02\x10\x02\x18\x03"O\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9as\x00\x00\x00\x16IDAT\x08\x99cp\x98\xf9\xff?\x03\x03S\xfc\xf5\x07\x9f{\x18\x01-R\x06po\x1f\x1dP\x00\x00\x00\x00IEND\xaeB`\x82\nf\n\x0bimn/image/1"W\x08\x02\x10\x02\x18\x03"O\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9as\x00\x00\x00\x16IDAT\x08\x99cp\x98\xf9\xff?\x03\x03S\xfc\xf5\x07\x9f{\x18\x01-R\x06po\x1f\x1dP\x00\x00\x00\x00IEND\xaeB`\x82',
    'img_h': b'\nf\n\x0bimh/image/0"W\x08\x02\x10\x02\x18\x03"O\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9as\x00\x00\x00\x16IDAT\x08\x99cp\x98\xf9\xff?\x03\x03S\xfc\xf5\x07\x9f{\x18\x01-R\x06po\x1f\x1dP\x00\x00\x00\x00IEND\xaeB`\x82',
    'img_d': b'\nf\n\x0bimd/image/0"W\x08\x02\x10\x02\x18\x03"O\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9as\x00\x00\x00\x16IDAT\x08\x99cp\x98\xf9\xef?\x03\x03S\xfc\xf5\x87\x9f{\x18\x01-K\x06p\xfc\x9a\xbb~\x00\x00\x00\x00IEND\xaeB`\x82',
    'img_grad': b'\n\x8c\x01\n\x0cgrad/image/0"|\x08\x10\x10@\x18\x04"t\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00@\x00\x00\x00\x10\x08\x06\x00\x00\x00\xa6\xe7y)\x00\x00\x00;IDATX\x85\xed\xd0A\r\xc00\x00\xc4\xb0k5\xfe\x98\x07\xc3\x8f\xc6\x08\xa2\x9cm\xfb\x1ev\xf7\xb8\x06\xe8\x00\xad\x01:@k\x80\x0e\xd0\x1a\xa0\x03\xb4\x06\xe8\x00\xad\x01:@k\x80\x0e\xd0~Q\xda\x04\x10N`~B\x00\x00\x00\x00IEND\xaeB`\x82',
    'audio': b'\n]\n\x0bsnd/audio/02N\r\x00\x00\xfaE\x10\x01\x18\x06"8RIFF0\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00\x02\x00\x10\x00data\x0c\x00\x00\x00\x00\x00\x00@\x00\xc0\xff\x7f\x00\x80\x00 *\taudio/wav',
    'audio3': b'\nX\n\nsnd3/audio2J\r\x00E\xacF\x10\x02\x18\x02"4RIFF,\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00"V\x00\x00\x88X\x01\x00\x04\x00\x10\x00data\x08\x00\x00\x00\x00\x00\xcd\x0c\x00@\x9a\xd9*\taudio/wav',
    'tensor': b'\n1\n\x01tB\x1e\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02"\x10\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00J\x0c\x12\x04disp\x1a\x04desc',
    'tensor_scalar': b'\n\x12\n\x02tsB\n\x08\x01\x12\x00"\x04\x00\x00`@J\x00',
    'tensor_bool': b'\n\x14\n\x02tbB\x0c\x08\n\x12\x04\x12\x02\x08\x02"\x02\x01\x00J\x00',
    'text': b"\n'\n\x02txB\x17\x08\x07\x12\x04\x12\x02\x08\x02B\x05helloB\x06w\xc3\xb6rldJ\x08\n\x06\n\x04text",
    'text_scalar': b'\n\x19\n\x03txsB\x08\x08\x07\x12\x00B\x02hiJ\x08\n\x06\n\x04text',
}

_NAN_IMAGE = np.array([[[[-0.5, 0.2, 1.0], [0.3, np.nan, 0.0]], [[0.25, -0.125, 0.75], [0.9, 0.1, -1.0]]]], np.float32)
_BUILDERS = {
    "scalar": lambda: tf.summary.scalar("loss", tf.constant(1.5)),
    "scalar_fam": lambda: tf.summary.scalar("loss", tf.constant(2, tf.int64), family="train"),
    "hist": lambda: tf.summary.histogram("h", tf.constant([0.0, 1.0, -2.5, 3.25, 1.0, 1e-13, 100.0])),
    "hist_int": lambda: tf.summary.histogram("hi", tf.constant([[1, 2], [3, 3]])),
    "hist_empty": lambda: tf.summary.histogram("he", tf.zeros([0])),
    "img_u8": lambda: tf.summary.image("im", tf.constant(np.arange(36, dtype=np.uint8).reshape(2, 2, 3, 3) * 7)),
    "img_f": lambda: tf.summary.image("imf", tf.constant([[[[0.1], [0.5]], [[0.25], [0.0]]]]), max_outputs=1),
    "img_neg": lambda: tf.summary.image("imn", tf.constant(np.concatenate([_NAN_IMAGE, _NAN_IMAGE * 3])),
                                        max_outputs=5),
    "img_h": lambda: tf.summary.image("imh", tf.constant(_NAN_IMAGE.astype(np.float16))),
    "img_d": lambda: tf.summary.image("imd", tf.constant(_NAN_IMAGE.astype(np.float64) * 1.7)),
    "img_grad": lambda: tf.summary.image(
        "grad", tf.constant(np.tile(np.arange(64, dtype=np.uint8)[None, :, None] * 4, (16, 1, 4))[None])),
    "audio": lambda: tf.summary.audio("snd", tf.constant([[0.0, 0.5, -0.5, 1.0, -1.5, 0.25]]), 8000),
    "audio3": lambda: tf.summary.audio(
        "snd3", tf.constant([[[0.0, 0.1], [0.5, -0.3]], [[1.0, 2.0], [-1.0, 0.7]]]), 22050.5, max_outputs=1),
    "tensor": lambda: tf.summary.tensor_summary("t", tf.constant([[1, 2], [3, 4]]), summary_description="desc",
                                                display_name="disp"),
    "tensor_scalar": lambda: tf.summary.tensor_summary("ts", tf.constant(3.5)),
    "tensor_bool": lambda: tf.summary.tensor_summary("tb", tf.constant([True, False])),
    "text": lambda: tf.summary.text("tx", tf.constant(["hello", "wörld"])),
    "text_scalar": lambda: tf.summary.text("txs", tf.constant("hi")),
}


@pytest.mark.parametrize("kind", sorted(TF_BYTES))
def test_summary_bytes_are_tfs(kind):
    with tf.Graph().as_default():
        check_tensor(_BUILDERS[kind](), TF_BYTES[kind], dtype=object)


def _digest(serialized: bytes) -> str:
    return hashlib.sha256(serialized).hexdigest()[:16]


def test_larger_inputs_match_tf():
    """PNG over several IDAT chunks and every filter type, float scaling of larger images, histograms of many
    values, WAV rounding and a merge of a string vector: sha256 prefixes of TF 2.21's bytes."""
    rng = np.random.RandomState(1)
    with tf.Graph().as_default():
        ties = [[0.5 / 32768, 1.5 / 32768, 2.5 / 32768, -0.5 / 32768, -1.5 / 32768, 0.99999, -0.99999, np.nan]]
        outs = {
            "wav_ties": tf.summary.audio("a", tf.constant(ties, tf.float32), 8000.7),
            "png_large": tf.summary.image("l", tf.constant((rng.rand(2, 90, 70, 3) * 255).astype(np.uint8))),
            "png_rgba_noise": tf.summary.image("r", tf.constant((rng.rand(1, 7, 5, 4) * 255).astype(np.uint8))),
            "png_gray_rows": tf.summary.image(
                "g", tf.constant(np.array([[200, 10, 250, 3, 128]] * 3, np.uint8)[None, :, :, None])),
            "png_float_big": tf.summary.image("f", tf.constant(rng.randn(3, 33, 17, 1).astype(np.float32)),
                                              max_outputs=2),
            "png_half_range": tf.summary.image("h", tf.constant((rng.rand(1, 9, 9, 3) * 1000).astype(np.float16))),
            "png_double_pos": tf.summary.image("d", tf.constant(rng.rand(1, 9, 9, 3) * 3.3)),
            "png_all_nan": tf.summary.image("n", tf.constant(np.full((1, 2, 2, 3), np.nan, np.float32))),
            "png_tiny": tf.summary.image("t", tf.constant(np.full((1, 2, 2, 1), 1e-7, np.float32))),
            "hist_half": tf.summary.histogram("hh", tf.constant(rng.randn(50).astype(np.float16))),
            "hist_big": tf.summary.histogram("hb", tf.constant(rng.randn(1000) * 1e5)),
            "hist_u64": tf.summary.histogram("hu", tf.constant(np.array([0, 2**63, 5], np.uint64))),
            "scalar_bf16": tf.summary.scalar("sb", tf.constant(1.7, tf.bfloat16)),
            "tensor_half": tf.summary.tensor_summary("th", tf.constant([1.5, -2.0], tf.float16)),
        }
        outs["merge_multi"] = tf.summary.merge([tf.stack([outs["scalar_bf16"], outs["tensor_half"]])])
        big = (np.random.RandomState(0).rand(1, 40, 50, 3) * 255).astype(np.uint8)
        big[0, 10:30] = 17
        outs["png_band"] = tf.summary.image("big", tf.constant(big))
        with tf.Session() as sess:
            got = {k: _digest(v) for k, v in sess.run(outs).items()}
    assert got == {
        "hist_big": "b2faac823edca033", "hist_half": "2d785c9d41f05d8c", "hist_u64": "f3896a7449fdb0da",
        "merge_multi": "f7baa4181c3ce700", "png_all_nan": "d89ea38c1643c907", "png_double_pos": "444f90457fb68782",
        "png_float_big": "e29374760ecadf07", "png_gray_rows": "918d5b115dccdc61", "png_half_range": "6490949ebd83790e",
        "png_large": "21f94f56d6765d7b", "png_rgba_noise": "76eb5e63cbb34274", "png_tiny": "f81a021de94b4371",
        "scalar_bf16": "960b6af0cdac2e05", "tensor_half": "1dcf82194815fd1e", "wav_ties": "9f000f94c0caf0e5",
        "png_band": "b6df07c4f218c33c",
    }


def test_merge_is_tfs_and_collections():
    with tf.Graph().as_default() as g:
        loss = tf.summary.scalar("loss", tf.constant(1.5))
        hist = tf.summary.histogram("h", tf.constant([0.0, 1.0, -2.5, 3.25, 1.0, 1e-13, 100.0]))
        kept_out = tf.summary.scalar("other", 1.0, collections=["mine"])
        merged = tf.summary.merge([loss, hist])
        assert merged.op.name == "Merge/MergeSummary" and merged.op.type == "MergeSummary"
        assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [loss, hist]
        assert tf.get_collection("mine") == [kept_out]
        merged_all = tf.summary.merge_all()
        assert merged_all.op.name == "Merge_1/MergeSummary"
        assert tf.summary.merge_all("nothing") is None
        with tf.Session() as sess:
            a, b = sess.run([merged, merged_all])
        assert a == b == TF_BYTES["scalar"] + TF_BYTES["hist"]
        assert [(n.name, n.op, list(n.input)) for n in g.as_graph_def().node if n.name.startswith("loss")] == [
            ("loss/tags", "Const", []), ("loss", "ScalarSummary", ["loss/tags", "Const"])]


def test_names_family_scoping_and_clean_tags():
    with tf.Graph().as_default():
        assert tf.summary.scalar("loss", 1.0, family="train").name == "train/loss:0"
        assert tf.summary.scalar("loss", 1.0, family="train").name == "train/loss_1:0"
        assert tf.summary.scalar("a b:c", 1.0).name == "a_b_c:0"
        assert tf.summary.scalar("/x", 1.0).name == "x:0"
        tagged = tf.summary.scalar("x", 1.0, family="f g")
        assert tagged.name == "f_g/x:0"
        with tf.Session() as sess:
            assert tf.Summary.FromString(sess.run(tagged)).value[0].tag == "f_g/f_g/x"
        with pytest.raises(ValueError, match="Expected tensor Const(_[0-9]+)?:0 to have dtype string, got <dtype: 'int32'>"):
            tf.summary.text("t", tf.constant(1))
        with pytest.raises(TypeError, match="has DataType string not in list of allowed values"):
            tf.summary.scalar("s", tf.constant("x"))
        with pytest.raises(ValueError, match="'inputs' to 'MergeSummary' Op with length 0 shorter than minimum"):
            tf.summary.merge([])


_RUNTIME_ERRORS = [
    (lambda: summary_ops.ScalarSummary(["a"], [1.0, 2.0]),
     r"tags and values are not the same shape: \[1\] != \[2\] \(tag 'a'\)"),
    (lambda: summary_ops.ScalarSummary(["a", "b"], [1.0, 2.0, 3.0]), "not the same shape: \\[2\\] != \\[3\\]\n"),
    (lambda: tf.summary.histogram("h", [1.0, np.nan, np.inf]), "Nan in summary histogram for: h"),
    (lambda: tf.summary.histogram("h", [1.0, -np.inf]), "Infinity in Histogram for: h"),
    (lambda: summary_ops.HistogramSummary(["a", "b"], [1.0]), "tags must be scalar"),
    (lambda: tf.summary.image("i", tf.zeros([1, 2, 2, 2])), r"4-D with last dim 1, 3, or 4, not \[1,2,2,2\]"),
    (lambda: tf.summary.image("i", tf.zeros([1, 0, 2, 1])), r"non-zero dims. Found: \[1, 0, 2, 1\]."),
    (lambda: summary_ops.ImageSummary(["a"], tf.zeros([1, 2, 2, 1])), "Tags must be a scalar"),
    (lambda: summary_ops.ImageSummary("a", tf.zeros([1, 2, 2, 4]), bad_color=np.array([1, 2, 3], np.uint8)),
     "expected depth <= bad_color.size, got depth = 4, bad_color.size = 3"),
    (lambda: tf.summary.audio("a", tf.zeros([3]), 8000), r"Tensor must be 3-D or 2-D, got: \[3\]"),
    (lambda: tf.summary.audio("a", tf.zeros([1, 3]), 0), "sample_rate must be > 0"),
    (lambda: summary_ops.AudioSummaryV2("a", tf.zeros([1, 3]), [8000.0, 1.0]),
     "sample_rate must be rank-0 or contain a single value"),
    (lambda: summary_ops.TensorSummaryV2(["a"], [1.0], b""), "tag must be scalar"),
    (lambda: summary_ops.TensorSummaryV2("a", [1.0], [b"", b""]), "serialized_summary_metadata must be scalar"),
    (lambda: tf.summary.merge([tf.summary.scalar("x", 1.0), summary_ops.ScalarSummary("x", 2.0)]),
     "Duplicate tag x found in summary inputs \n"),
    (lambda: tf.summary.merge([tf.constant(b"\xff\xff")]), "Could not parse one of the summary inputs"),
]


@pytest.mark.parametrize("build, message", _RUNTIME_ERRORS)
def test_runtime_errors_are_tfs(build, message):
    with tf.Graph().as_default():
        summary = build()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
            sess.run(summary)
    assert info.value.op.name == summary.op.name


def test_edge_cases_as_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        empty_batch = tf.summary.image("i", tf.zeros([0, 2, 2, 1]))
        bad_metadata = summary_ops.TensorSummaryV2("a", [1.0], b"\xff\xff")
        colored = summary_ops.ImageSummary("a", [[[[np.nan], [1.0]]]], bad_color=np.array([9, 2, 3], np.uint8))
        out = sess.run([empty_batch, bad_metadata, colored])
    assert out[0] == b""
    assert out[1] == b'\n\x15\n\x01aB\x0e\x08\x01\x12\x04\x12\x02\x08\x01"\x04\x00\x00\x80?J\x00'
    image = tf.Summary.FromString(out[2]).value[0]
    assert image.tag == "a/image/0" and (image.image.height, image.image.width, image.image.colorspace) == (1, 2, 1)
    png = image.image.encoded_image_string
    assert zlib.decompress(png[png.index(b"IDAT") + 4:png.index(b"IEND") - 8]) == b"\x00\x09\xff"  # NaN: bad_color


def test_file_writer_writes_what_summary_iterator_reads(tmp_path):
    with tf.Graph().as_default():
        loss = tf.summary.scalar("loss", tf.constant(1.5))
        image = tf.summary.image("im", tf.zeros([1, 2, 2, 3], tf.uint8), max_outputs=1)
        with tf.Session() as sess:
            serialized, image_bytes = sess.run([loss, image])
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(serialized, global_step=7)
        writer.add_summary(tf.Summary.FromString(image_bytes), 8)
    path = writer.event_writer.path
    events = list(tf.train.summary_iterator(path))
    assert [e.step for e in events] == [0, 7, 8]
    assert events[1].summary.SerializeToString() == TF_BYTES["scalar"]
    assert events[2].summary.value[0].tag == "im/image"


def test_default_bad_color_attr_is_tfs_tensor_proto():
    """An ImageSummary built without bad_color carries TF's TensorProto (int_val, uint8), not its text."""
    with tf.Graph().as_default():
        op = tf.summary.image("img", tf.zeros([1, 2, 2, 1])).op
        assert op.node_def.attr["bad_color"].SerializeToString() == (
            b"B\x10\x08\x04\x12\x04\x12\x02\x08\x04:\x06\xff\x01\x00\x00\xff\x01")  # TF 2.21's bytes
        assert tf.make_ndarray(op.get_attr("bad_color")).tolist() == [255, 0, 0, 255]
