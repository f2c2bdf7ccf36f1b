"""Unicode string ops (UnicodeDecode(WithOffsets), UnicodeEncode, UnicodeScript) and the RaggedTensor forms of
tf.strings (unicode_decode/split/encode, bytes_split, split and ngrams on ragged input) against values recorded
from TensorFlow 2.21 (compat.v1), static shapes and TF's errors."""

import pytest

import tensorweave.compat.v1 as tf


def _show(v):
    if isinstance(v, tuple):
        return tuple(_show(x) for x in v)
    if hasattr(v, "to_list"):
        return v.to_list()
    return v.tolist() if hasattr(v, "tolist") else v


D = tf.strings.unicode_decode
_CASES = {
 'decode_utf8': lambda: D(['héllo', '', 'wörld€'], 'UTF-8'),
 'decode_scalar': lambda: D('héllo', 'UTF-8'),
 'decode_matrix': lambda: D([['ab', 'c'], ['d', 'é']], 'UTF-8'),
 'decode_replace': lambda: D([b'a\xffb\xc3', b'\x01x', b'\xe2\x82z\xed\xa0\x80'], 'UTF-8'),
 'decode_ignore': lambda: D([b'a\xffb\xc3', b'\x01x'], 'UTF-8', errors='ignore'),
 'decode_control': lambda: D([b'a\xffb\xc3', b'\x01x'], 'UTF-8', replacement_char=63, replace_control_characters=True),
 'decode_offsets': lambda: tf.strings.unicode_decode_with_offsets(['héllo'.encode(), 'a€b'.encode(), b'x\xffy\xf0\x9f\x98\x80'], 'UTF-8'),
 'decode_offsets_ignore': lambda: tf.strings.unicode_decode_with_offsets([b'x\xff\xfey\xf0\x9f\x98\x80'], 'UTF-8', errors='ignore'),
 'decode_utf16': lambda: D([b'\x00h\x00i', b'\xd8\x3d\xde\x00', b'\xdc\x00\x00a'], 'UTF-16-BE'),
 'decode_utf16_offsets': lambda: tf.strings.unicode_decode_with_offsets([b'\x00h\xd8\x3d\xde\x00\x00i'], 'UTF-16-BE'),
 'decode_utf32': lambda: D([b'\x00\x00\x00h\x00\x01\xf6\x00', b'\x00\x11\x00\x00\x00\x00\x00a'], 'UTF-32-BE'),
 'split': lambda: tf.strings.unicode_split(['héllo', 'a€'], 'UTF-8'),
 'split_offsets': lambda: tf.strings.unicode_split_with_offsets(['héllo', 'a€'], 'UTF-8'),
 'split_utf16': lambda: tf.strings.unicode_split([b'\x00h\xd8\x3d\xde\x00'], 'UTF-16-BE'),
 'encode_ragged': lambda: tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [], [8364, 0x1F600]]), 'UTF-8'),
 'encode_vector': lambda: tf.strings.unicode_encode([104, 233], 'UTF-16-BE'),
 'encode_matrix': lambda: tf.strings.unicode_encode([[104, 233], [65, 66]], 'UTF-32-BE'),
 'encode_nested': lambda: tf.strings.unicode_encode(tf.ragged.constant([[[104], [105, 106]], [[107]]]), 'UTF-8'),
 'encode_replace': lambda: tf.strings.unicode_encode(tf.ragged.constant([[104, -5, 0x110000, 0xD800]]), 'UTF-8'),
 'encode_replace_char': lambda: tf.strings.unicode_encode(tf.ragged.constant([[104, -5]]), 'UTF-8', replacement_char=42),
 'encode_ignore': lambda: tf.strings.unicode_encode(tf.ragged.constant([[104, -5, 0x110000]]), 'UTF-8', errors='ignore'),
 'script': lambda: tf.strings.unicode_script([72, 1046, 0x4E2D, 48, -1, 0x3042, 1575, 0x10FFFF, 0x110000, 0x1F600]),
 'bytes_split': lambda: tf.strings.bytes_split(['hé', '']),
 'bytes_split_scalar': lambda: tf.strings.bytes_split('ab'),
 'split_ragged': lambda: tf.strings.split(['a b  c', ''], result_type='RaggedTensor'),
 'split_ragged_sep': lambda: tf.strings.split(['a,b,,c'], sep=',', result_type='RaggedTensor'),
 'split_ragged_scalar': lambda: tf.strings.split('a b', result_type='RaggedTensor'),
 'string_split_ragged': lambda: tf.string_split(['a b  c', ''], result_type='RaggedTensor'),
 'ngrams_ragged': lambda: tf.strings.ngrams(tf.ragged.constant([['a', 'b', 'c'], ['d']]), 2),
 'ngrams_ragged_pad': lambda: tf.strings.ngrams(tf.ragged.constant([['a', 'b', 'c'], ['d']]), [1, 2], pad_values='#', padding_width=1),
 'transcode': lambda: tf.strings.unicode_transcode([b'\x00h\x00\xe9'], 'UTF-16-BE', 'UTF-8'),
}

_EXPECTED = {
    'decode_utf8': [[104, 233, 108, 108, 111], [], [119, 246, 114, 108, 100, 8364]],
    'decode_scalar': [104, 233, 108, 108, 111],
    'decode_matrix': [[[97, 98], [99]], [[100], [233]]],
    'decode_replace': [[97, 65533, 98, 65533], [1, 120], [65533, 122, 65533, 65533, 65533]],
    'decode_ignore': [[97, 98], [1, 120]],
    'decode_control': [[97, 63, 98, 63], [63, 120]],
    'decode_offsets': ([[104, 233, 108, 108, 111], [97, 8364, 98], [120, 65533, 121, 128512]], [[0, 1, 3, 4, 5], [0, 1, 4], [0, 1, 2, 3]]),
    'decode_offsets_ignore': ([[120, 121, 128512]], [[0, 3, 4]]),
    'decode_utf16': [[104, 105], [128512], [65533, 97]],
    'decode_utf16_offsets': ([[104, 128512, 105]], [[0, 2, 6]]),
    'decode_utf32': [[104, 128512], [65533, 97]],
    'split': [[b'h', b'\xc3\xa9', b'l', b'l', b'o'], [b'a', b'\xe2\x82\xac']],
    'split_offsets': ([[b'h', b'\xc3\xa9', b'l', b'l', b'o'], [b'a', b'\xe2\x82\xac']], [[0, 1, 3, 4, 5], [0, 1]]),
    'split_utf16': [[b'\x00h', b'\xd8=\xde\x00']],
    'encode_ragged': [b'h\xc3\xa9', b'', b'\xe2\x82\xac\xf0\x9f\x98\x80'],
    'encode_vector': b'\x00h\x00\xe9',
    'encode_matrix': [b'\x00\x00\x00h\x00\x00\x00\xe9', b'\x00\x00\x00A\x00\x00\x00B'],
    'encode_nested': [[b'h', b'ij'], [b'k']],
    'encode_replace': [b'h\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd'],
    'encode_replace_char': [b'h*'],
    'encode_ignore': [b'h'],
    'script': [25, 8, 17, 0, -1, 20, 2, 103, -1, 0],
    'bytes_split': [[b'h', b'\xc3', b'\xa9'], []],
    'bytes_split_scalar': [b'a', b'b'],
    'split_ragged': [[b'a', b'b', b'c'], []],
    'split_ragged_sep': [[b'a', b'b', b'', b'c']],
    'split_ragged_scalar': [[b'a', b'b']],
    'string_split_ragged': [[b'a', b'b', b'c'], []],
    'ngrams_ragged': [[b'a b', b'b c'], []],
    'ngrams_ragged_pad': [[b'a', b'b', b'c', b'# a', b'a b', b'b c', b'c #'], [b'd', b'# d', b'd #']],
    'transcode': [b'h\xc3\xa9'],
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_unicode_values_match_tf(case):
    with tf.Graph().as_default(), tf.Session() as sess:
        assert _show(sess.run(_CASES[case]())) == _EXPECTED[case]


def test_static_shapes():
    matrix = tf.strings.unicode_decode([["ab", "c"], ["d", "é"]], "UTF-8")
    assert matrix.shape.as_list() == [2, 2, None] and matrix.ragged_rank == 2
    assert tf.strings.unicode_decode("ab", "UTF-8").shape.as_list() == [None]
    assert tf.strings.unicode_encode([[104, 233], [65, 66]], "UTF-8").shape.as_list() == [2]
    assert tf.strings.unicode_script([1, 2]).shape.as_list() == [2]


def test_errors():
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
            sess.run(tf.strings.unicode_decode([b"a\xffb"], "UTF-8", errors="strict").values)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Code point is out of range for Unicode, or is a surrogate."):
            sess.run(tf.strings.unicode_encode(tf.ragged.constant([[104, -5]]), "UTF-8", errors="strict"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not create converter for input encoding"):
            sess.run(tf.strings.unicode_decode(["a"], "LATIN-99").values)
    with pytest.raises(ValueError, match="Attr 'output_encoding' of 'UnicodeEncode' Op passed string 'UTF-7' not in"):
        tf.strings.unicode_encode([1], "UTF-7")
    with pytest.raises(ValueError, match="result_type must be"):
        tf.strings.split(["a"], result_type="Dense")


def test_decode_with_other_icu_converters():
    """ICU's converters beyond the UTF ones, as TF 2.21 decodes b'ab\\xe9\\x80c' and b'\\xff\\xfea\\x00'."""
    data = [b"ab\xe9\x80c", b"\xff\xfea\x00"]
    with tf.Session() as sess:
        latin9, utf16 = sess.run([tf.strings.unicode_decode(data, "LATIN-9").flat_values,
                                  tf.strings.unicode_decode(data, "UTF-16").flat_values])
    assert latin9.tolist() == [97, 98, 233, 128, 99, 255, 254, 97, 0]
    assert utf16.tolist() == [24930, 59776, 65533, 97]
