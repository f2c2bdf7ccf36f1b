"""String ops against values and error messages recorded from real TensorFlow 2.21 (`tf.compat.v1`): joins,
slices, regexes, case, number parsing and printing, reduce_join's axis order, the three bucket hashes
(FarmHash Fingerprint64, SipHash-2-4, TF's legacy Hash64), base64, DecodeRaw, DecodeCSV and transcoding."""

import re
import sys

import numpy as np
import pytest
from op_testing import check_op, runtime_message

import tensorweave.compat.v1 as tf

S = [b"Hello", b"  World \t", b"\xc3\xa9t\xc3\xa9", b""]


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _strings(values):
    return np.array(values, dtype=object)


def test_join_length_substr():
    check_op(lambda a, b: tf.strings.join([a, "-", b], separator="|"), [_strings([b"a", b"b"]), _strings([b"c", b"d"])],
             _strings([b"a|-|c", b"b|-|d"]))
    assert _run(tf.string_join([])) == b""
    check_op(lambda s: [tf.strings.length(s), tf.strings.length(s, unit="UTF8_CHAR")], [_strings(S)],
             [np.array([5, 9, 5, 0], np.int32), np.array([5, 9, 3, 0], np.int32)])
    check_op(lambda s: tf.strings.substr(s, [1, 2], [2, 3]), [_strings([[b"Hello", b"World"], [b"abcde", b"xyz12"]])],
             _strings([[b"el", b"rld"], [b"bc", b"z12"]]))
    check_op(lambda s: tf.substr(s, -3, 2), [_strings([b"Hello", b"abc"])], _strings([b"ll", b"ab"]))
    check_op(lambda s: tf.strings.substr(s, 1, 2, unit="UTF8_CHAR"), [_strings([b"\xc3\xa9t\xc3\xa9x"])],
             _strings([b"t\xc3\xa9"]))
    assert _run(tf.strings.substr(b"Hello", 1, -1)) == b"ello"


def test_join_and_substr_errors():
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are "
                                         r"\[2\] and \[3\]"):
        tf.strings.join([["a", "b"], ["c", "d", "e"]])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.strings.substr([b"a", b"b"], [1, 2, 3], [1, 2, 3])
    p = tf.placeholder(tf.string, [None])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input shapes do not match: \[2\] vs. \[3\]"):
        _run(tf.strings.join([p, tf.constant(["c", "d", "e"])]), {p: ["a", "b"]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"pos 4 out of range for string b'abc' at index 1"):
        _run(tf.strings.substr([b"Hello", b"abc"], 4, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"pos 4 out of range for string at index 0"):
        _run(tf.strings.substr([b"\xc3\xa9t\xc3\xa9"], 4, 1, unit="UTF8_CHAR"))


def test_regexes():
    assert tf.strings.regex_replace(["x"], "a", "b").op.type == "StaticRegexReplace"
    assert tf.regex_replace(["x"], tf.constant("a"), "b").op.type == "RegexReplace"
    values = _run([tf.strings.regex_replace(["foo bar", "aaa"], "a+", "<\\0>"),
                   tf.regex_replace(["foo bar", "aaa"], "(o)", "[\\1]", replace_global=False),
                   tf.strings.regex_replace(["foo bar", "aaa"], tf.constant("(o)"), "[\\1]"),
                   tf.strings.regex_full_match(["foo", "foobar", ""], "fo+"),
                   tf.strings.regex_full_match(["foo", "foobar", ""], tf.constant("fo+"))])
    assert [v.tolist() for v in values] == [[b"foo b<a>r", b"<aaa>"], [b"f[o]o bar", b"aaa"],
                                            [b"f[o][o] bar", b"aaa"], [True, False, False], [True, False, False]]
    bad = tf.strings.regex_full_match(["foo"], "(", name="m")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid pattern: \(, error: ") as info:
        _run(bad)
    assert info.value.op.name == "m"


def test_regex_unicode_general_categories_as_re2():
    # recorded from TF: RE2's \pL, \p{Lu}, \PL, \p{^L} (also inside a class) over UTF-8 text
    text = ["h\u00e9llo w\u00f6rld 123", "\u0391\u03b2\u0393 \u00bd x_y!", "\U0001F600 a"]
    found = _run([tf.strings.regex_replace(text, pattern, "#")
                  for pattern in [r"\pL", r"\p{Lu}", r"\p{^L}", r"[\PL]", r"\p{Nd}", r"\p{So}", r"[^\pL\d]"]])
    assert [[t.decode() for t in v] for v in found] == [
        ["##### ##### 123", "### \u00bd #_#!", "\U0001F600 #"],
        ["h\u00e9llo w\u00f6rld 123", "#\u03b2# \u00bd x_y!", "\U0001F600 a"],
        ["h\u00e9llo#w\u00f6rld####", "\u0391\u03b2\u0393###x#y#", "##a"],
        ["h\u00e9llo#w\u00f6rld####", "\u0391\u03b2\u0393###x#y#", "##a"],
        ["h\u00e9llo w\u00f6rld ###", "\u0391\u03b2\u0393 \u00bd x_y!", "\U0001F600 a"],
        ["h\u00e9llo w\u00f6rld 123", "\u0391\u03b2\u0393 \u00bd x_y!", "# a"],
        ["h\u00e9llo#w\u00f6rld#123", "\u0391\u03b2\u0393###x#y#", "##a"]]


@pytest.mark.parametrize("pattern, error", [  # RE2's messages, as TF 2.21 reports them
    ("(", "missing ): ("), ("a(b", "missing ): a(b"), ("a)b)", "unexpected ): a)b)"), ("[a-", "missing ]: [a-"),
    ("*a", "no argument for repetition operator: *"), ("a|*", "no argument for repetition operator: *"),
    ("a**", "bad repetition operator: **"), ("a*?+", "bad repetition operator: *?+"),
    ("a{3}{2}", "bad repetition operator: {3}{2}"), ("a{2,1}b", "invalid repetition size: {2,1}"),
    ("a{1001}", "invalid repetition size: {1001}"), ("ab\\", "trailing \\"),
    ("[z-a]x", "invalid character class range: z-a"), ("\\p{Foo}", "invalid character class range: \\p{Foo}"),
    ("\\8", "invalid escape sequence: \\8"), ("(a)\\1", "invalid escape sequence: \\1"),
    ("\\Z", "invalid escape sequence: \\Z"), ("(?<=a)b", "invalid perl operator: (?<"),
    ("(?!a)", "invalid perl operator: (?!"), ("(?i", "invalid perl operator: (?i"),
])
def test_regex_errors_are_re2s(pattern, error):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.strings.regex_full_match(["a"], pattern))
    assert runtime_message(info.value).split("\n")[0] == f"Invalid pattern: {pattern}, error: {error}"


def test_strip_and_case():
    values = _run([tf.strings.strip([b"  a b \t\n", b"\x0bx\x0c", b""]),
                   tf.strings.lower([b"HeLLo \xc3\x89T\xc3\x89"]), tf.strings.upper([b"HeLLo \xc3\xa9t\xc3\xa9"]),
                   tf.strings.lower([b"HeLLo \xc3\x89T\xc3\x89"], encoding="utf-8"),
                   tf.strings.upper([b"HeLLo \xc3\xa9t\xc3\xa9 \xc3\x9f"], encoding="utf-8")])
    assert [v.tolist() for v in values] == [[b"a b", b"x", b""], [b"hello \xc3\x89t\xc3\x89"],
                                            [b"HELLO \xc3\xa9T\xc3\xa9"], [b"hello \xc3\xa9t\xc3\xa9"],
                                            [b"HELLO \xc3\x89T\xc3\x89 SS"]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="only utf-8 or '' \\(no encoding\\) is supported, received latin1"):
        _run(tf.strings.upper([b"x"], encoding="latin1"))


def test_string_to_number():
    check_op(lambda s: tf.strings.to_number(s), [_strings([b"1.5", b" 2", b"-3e2", b"inf", b"0x10", b"1e40", b"+4"])],
             np.array([1.5, 2, -300, np.inf, 16, np.inf, 4], np.float32))
    check_op(lambda s: tf.string_to_number(s, tf.int32), [_strings([b"12", b"-7", b" 3", b"+4"])],
             np.array([12, -7, 3, 4], np.int32))
    assert _run(tf.strings.to_number(["0x1p3"], out_type=tf.float64)).tolist() == [8.0]
    assert _run(tf.strings.to_number(["3000000000"], out_type=tf.int64)).tolist() == [3000000000]
    for text, dtype in [("1.5", tf.int32), ("3000000000", tf.int32), ("abc", tf.float32), ("1_0", tf.float32),
                        ("", tf.float32)]:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=f"StringToNumberOp could not correctly convert string: {re.escape(text)}(\n|$)"):
            _run(tf.strings.to_number([text], out_type=dtype))


def test_as_string_formats_as_tf():
    cases = [
        (tf.as_string([1.5, -0.25, 1e10, np.inf, -np.inf, np.nan, 123456789.0]),
         [b"1.500000", b"-0.250000", b"10000000000.000000", b"inf", b"-inf", b"nan", b"123456792.000000"]),
        (tf.as_string([1.5, -0.25, 1e10, 1 / 3], precision=2), [b"1.50", b"-0.25", b"10000000000.00", b"0.33"]),
        (tf.as_string([1.5, -0.25, 1e10, 1 / 3], scientific=True),
         [b"1.500000e+00", b"-2.500000e-01", b"1.000000e+10", b"3.333333e-01"]),
        (tf.strings.as_string([1.5, -0.25, 1e10, 1 / 3, 1e-5, 100000.0, 1e6], shortest=True),
         [b"1.5", b"-0.25", b"1e+10", b"0.333333", b"1e-05", b"100000", b"1e+06"]),
        (tf.as_string([1.5, 1 / 3, 1e10], shortest=True, precision=3), [b"1.5", b"0.333", b"1e+10"]),
        (tf.as_string([1.5, -2.0], width=10, fill="0"), [b"001.500000", b"-02.000000"]),
        (tf.as_string([1.5, -2.0], width=8, fill="+"), [b"+1.500000", b"-2.000000"]),
        (tf.as_string([1.5, -2.0], width=8, fill=" "), [b" 1.500000", b"-2.000000"]),
        (tf.as_string([1, -20, 300], width=5, fill="0"), [b"00001", b"-0020", b"00300"]),
        (tf.as_string(np.array([200, 5], np.uint8), width=4), [b" 200", b"   5"]),
        (tf.as_string(np.array([2**64 - 1], np.uint64)), [b"18446744073709551615"]),
        (tf.as_string([True, False], width=7), [b"true", b"false"]),
        (tf.as_string(np.array([1 + 2j, -0.5j], np.complex64)), [b"(1.000000,2.000000)", b"(-0.000000,-0.500000)"]),
        (tf.as_string(np.array([1 + 2j]), precision=1, width=6), [b"(   1.0,   2.0)"]),
        (tf.as_string(["ab", "c"], width=4), [b"  ab", b"   c"]),
        (tf.as_string(np.array([1.5, 0.1], np.float16)), [b"1.500000", b"0.099976"]),
        (tf.as_string(np.array([-np.nan, np.nan], np.float32)), [b"-nan", b"nan"]),
        # C's printf pads a NaN or an infinity with spaces whatever the flag, and keeps the NaN's sign
        (tf.as_string([np.nan, -np.nan, np.inf, -np.inf], width=7, fill="0"),
         [b"    nan", b"   -nan", b"    inf", b"   -inf"]),
        (tf.as_string([np.nan, -np.nan, np.inf], width=6, fill="-"), [b"nan   ", b"-nan  ", b"inf   "]),
        (tf.as_string([np.nan, np.inf], width=6, fill="+", scientific=True), [b"  +nan", b"  +inf"]),
        (tf.as_string(tf.complex([np.inf, -np.nan], [-np.inf, 1.0]), width=5),
         [b"(  inf, -inf)", b"( -nan,1.000000)"]),
    ]
    values = _run([t for t, _ in cases])
    assert [v.tolist() for v in values] == [e for _, e in cases]
    for kwargs, message in [({"scientific": True, "shortest": True}, "Cannot select both scientific and shortest "
                             "notation"), ({"fill": "x", "width": 8}, 'Fill argument not supported: "x"'),
                            ({"fill": "00"}, "Fill string must be one or fewer characters")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(tf.as_string([1.5], **kwargs))
    with pytest.raises(tf.errors.InvalidArgumentError, match="precision not supported for datatype int32"):
        _run(tf.as_string([1], precision=2))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="scientific and shortest format not supported for datatype int32"):
        _run(tf.as_string([1], shortest=True))


def test_reduce_join_axis_order():
    x = [["a", "b"], ["c", "d"]]
    cube = np.array([b"%d" % i for i in range(8)], dtype=object).reshape(2, 2, 2)
    tensors = [tf.strings.reduce_join(x), tf.strings.reduce_join(x, 0, separator="-"),
               tf.reduce_join(x, [1, 0], separator=","), tf.reduce_join(x, [0, 1], separator=","),
               tf.reduce_join(x, -1), tf.reduce_join(cube, [2, 0], separator="."), tf.reduce_join(x, [])]
    assert tensors[0].op.name == "ReduceJoin/ReduceJoin"
    values = _run(tensors)
    assert [np.asarray(v).tolist() for v in values] == [b"abcd", [b"a-c", b"b-d"], b"a,b,c,d", b"a,c,b,d",
                                                        [b"ab", b"cd"], [b"0.1.4.5", b"2.3.6.7"],
                                                        [[b"a", b"b"], [b"c", b"d"]]]
    check_op(lambda s: tf.strings.reduce_join(s, 1, keep_dims=True), [_strings([[b"a", b"b"], [b"c", b"d"]])],
             _strings([[b"ab"], [b"cd"]]))
    assert _run(tf.reduce_join(tf.zeros([2, 0], tf.string), 1)).tolist() == [b"", b""]
    unknown_axes = tf.reduce_join(x, tf.placeholder_with_default([0], [None]), keep_dims=True)
    assert unknown_axes.shape.as_list() == [None, None]
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 dimensions."):
        tf.reduce_join(x, 2)
    axis = tf.placeholder(tf.int32, [None])
    with pytest.raises(tf.errors.OutOfRangeError, match=r"Invalid reduction dimension 2 for input with 2 dimension\(s\)"):
        _run(tf.reduce_join(x, axis), {axis: [2]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate reduction dimension 1"):
        _run(tf.reduce_join(x, axis), {axis: [1, 1]})


HASHED = [b"", b"a", b"hello", b"abcdefgh12345678", b"x" * 17, b"y" * 33, b"z" * 65, b"w" * 100, b"0123456789" * 30]


def test_hash_buckets_match_tf():
    check_op(lambda s: tf.strings.to_hash_bucket_fast(s, 2**62), [_strings(HASHED)], np.array(
        [1936946117179621455, 3694432073954588131, 3786372426573024488, 4053571293841579569, 2082709914559524773,
         3999049019338133246, 3688229565335330613, 1541208536988169809, 4542588636679321795], np.int64))
    fast, strong, legacy, legacy_v1 = _run([
        tf.string_to_hash_bucket_fast([b"", b"a", b"hello", b"The quick brown fox jumps over the lazy dog"], 1000000007),
        tf.strings.to_hash_bucket_strong([b"", b"a", b"hello", b"x" * 17, b"0123456789" * 30], 2**62, [1, 2]),
        tf.strings.to_hash_bucket([b"", b"a", b"hello", b"x" * 17, b"0123456789" * 30], 2**62),
        tf.string_to_hash_bucket([b"a"], 10)])
    assert fast.tolist() == [912170738, 384735799, 359589692, 124322544]
    assert strong.tolist() == [443797209252341627, 546566331822570742, 2957200328589801622, 3111895715772102224,
                               4393460464155500286]
    assert legacy.tolist() == [105434511174508091, 2996632905371535868, 1331861223480393034, 4161156153655800118,
                               3314240917884117545]
    assert legacy_v1.tolist() == [8]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
        _run(tf.strings.to_hash_bucket_strong([b"a"], 10, [1]))


def test_base64():
    values = _run([tf.io.encode_base64([b"hello?>", b"\xff\xfe", b""]),
                   tf.encode_base64([b"hello?>", b"\xff\xfe", b"a"], pad=True),
                   tf.io.decode_base64([b"aGVsbG8_Pg", b"__4", b"YQ==", b""])])
    assert [v.tolist() for v in values] == [[b"aGVsbG8_Pg", b"__4", b""], [b"aGVsbG8_Pg==", b"__4=", b"YQ=="],
                                            [b"hello?>", b"\xff\xfe", b"a", b""]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Base64 string length cannot be 1 modulo 4."):
        _run(tf.decode_base64([b"a"]))
    for short in [b"abcd=", b"="]:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Base64 string length cannot be 1 modulo 4."):
            _run(tf.decode_base64([short]))
    # TF decodes the quads before the last first: a padded quad in the middle is a bad character, before the
    # length of the rest is looked at
    for bad in [b"a+b/", b"YQ=", b"Y Q", b"aGVsbA===", b"YQ==a", b"a===", b"abcd==", b"abcd===="]:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid character found in base64."):
            _run(tf.decode_base64([bad]))


def test_decode_raw():
    check_op(lambda s: tf.decode_raw(s, tf.int16), [_strings([b"\x01\x00\x02\x00", b"\xff\xff\x00\x01"])],
             np.array([[1, 2], [-1, 256]], np.int16), fully_defined=False)
    raw = tf.io.decode_raw([[b"ab"], [b"cd"]], tf.uint8)
    assert raw.shape.as_list() == [2, 1, None]
    big, uint8, floats, empty, complex_be = _run([
        tf.decode_raw([b"\x01\x00\x02\x00"], tf.int16, little_endian=False), raw,
        tf.io.decode_raw(np.array([1.5, 2], np.float32).tobytes(), tf.float32),
        tf.decode_raw(tf.zeros([0], tf.string), tf.int32),
        tf.decode_raw([np.array([1 + 2j], ">c8").tobytes()], tf.complex64, little_endian=False)])
    assert big.tolist() == [[256, 512]] and uint8.tolist() == [[[97, 98]], [[99, 100]]]
    assert floats.tolist() == [1.5, 2.0] and empty.shape == (0, 0) and complex_be.tolist() == [[1 + 2j]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input to DecodeRaw has length 3 that is not a multiple of 2, the size of int16"):
        _run(tf.decode_raw([b"\x01\x00\x02"], tf.int16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeRaw requires input strings to all be the same "
                                                             "size, but element 1 has size 2 != 4"):
        _run(tf.decode_raw([b"\x01\x00", b"\x01\x00\x02\x00"], tf.int16))


def test_decode_csv():
    check_op(lambda r: tf.io.decode_csv(r, [[0], [1.0], ["d"], tf.constant([9], tf.int64)]),
             [_strings([b"1,2.5,abc,7", b'3,,"x,y",'])],
             [np.array([1, 3], np.int32), np.array([2.5, 1.0], np.float32), _strings([b"abc", b"x,y"]),
              np.array([7, 9], np.int64)])
    values = _run([tf.decode_csv(["1,2.5,abc,7"], [[0], ["d"]], select_cols=[0, 2]),
                   tf.io.decode_csv(["NA,1", "2,NA"], [[0], [5.0]], na_value="NA"),
                   tf.io.decode_csv(['a|"b""c"|d'], [[""], [""], [""]], field_delim="|"),
                   tf.io.decode_csv(['a,"b",c'], [[""], [""], [""]], use_quote_delim=False),
                   tf.io.decode_csv(["9000000000,-1", "1 ,2"], [tf.constant([0], tf.int64), [0.0]]),
                   tf.io.decode_csv([["1,2"], ["3,4"]], [[0], [0]])])
    assert [[c.tolist() for c in v] for v in values] == [
        [[1], [b"abc"]], [[0, 2], [1.0, 5.0]], [[b"a"], [b'b"c'], [b"d"]], [[b"a"], [b'"b"'], [b"c"]],
        [[9000000000, 1], [-1.0, 2.0]], [[[1], [3]], [[2], [4]]]]
    for records, defaults, message in [
            (["1,"], [[0], tf.constant([], tf.int32)], "Field 1 is required but missing in record 0!"),
            (["1,2,3"], [[0], [0]], "Expect 2 fields but have 3 in record 0"),
            (["1.5,2"], [[0], [0]], "Field 0 in record 0 is not a valid int32: 1.5"),
            (["x,2"], [[0.0], [0]], "Field 0 in record 0 is not a valid float: x"),
            (['"ab,c'], [[""], [""]], "Quoted field has to end with quote followed by delim or end"),
            (['"a"b,c'], [[""], [""]], "Quote inside a string has to be escaped by another quote"),
            (['a"b,c'], [[""], [""]], "Unquoted fields cannot have quotes/CRLFs inside")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("(", r"\(")):
            _run(tf.io.decode_csv(records, defaults))
    with pytest.raises(tf.errors.InvalidArgumentError, match="field_delim should be only 1 char"):
        _run(tf.decode_csv(["1,2"], [[0]], field_delim="ab"))
    for cols, message in [([1, 0], "select_cols is not strictly increasing."),
                          ([0, 1], "Length of select_cols and record_defaults do not match."),
                          ([-1], "select_cols contains negative values.")]:
        with pytest.raises(ValueError, match=message):
            tf.decode_csv(["1,2"], [[0]], select_cols=cols)
    with pytest.raises(ValueError, match="Shape of a default must be a length-0 or length-1 vector, or a scalar."):
        tf.decode_csv(["1,2"], [[0, 1], [0]])
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):  # TF's WithRankAtMost first
        tf.decode_csv(["1,2"], [[0], [[0]]])


def test_unicode_transcode():
    values = _run([tf.strings.unicode_transcode([b"h\xc3\xa9llo", b"a\xffb"], "UTF-8", "UTF-16-BE"),
                   tf.strings.unicode_transcode([b"h\xc3\xa9llo", b"a\xffb"], "UTF-8", "UTF-8"),
                   tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-32-BE", errors="ignore"),
                   tf.strings.unicode_transcode([b"a\x01b"], "UTF-8", "UTF-8", replace_control_characters=True),
                   tf.strings.unicode_transcode([b"\x00a"], "UTF-16-BE", "UTF-8"),
                   tf.strings.unicode_transcode([b"\xe9"], "ISO-8859-1", "UTF-8"),
                   tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", replacement_char=63)])
    assert [v.tolist() for v in values] == [
        [b"\x00h\x00\xe9\x00l\x00l\x00o", b"\x00a\xff\xfd\x00b"], [b"h\xc3\xa9llo", b"a\xef\xbf\xbdb"],
        [b"\x00\x00\x00a\x00\x00\x00b"], [b"a\xef\xbf\xbdb"], [b"a"], [b"\xc3\xa9"], [b"a?b"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
        _run(tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", errors="strict"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not create converter for input encoding: bogus"):
        _run(tf.strings.unicode_transcode([b"a"], "bogus", "UTF-8"))
    with pytest.raises(ValueError, match="Attr 'output_encoding' of 'UnicodeTranscode' Op passed string 'latin1' not "
                                         'in: "UTF-8", "UTF-16-BE", "UTF-32-BE".'):
        tf.strings.unicode_transcode([b"a"], "UTF-8", "latin1")


def _assert_sparse_value(value, indices, values, dense_shape):
    np.testing.assert_array_equal(value.indices, np.array(indices, np.int64).reshape(-1, 2))
    np.testing.assert_array_equal(value.values, _strings(values))
    np.testing.assert_array_equal(value.dense_shape, dense_shape)


def test_string_split_and_strings_split():
    s = tf.constant(["a b  c", "", "d"])
    results = [tf.string_split(s), tf.string_split(s, delimiter=" ", skip_empty=False),
               tf.strings.split(s, sep=" ", maxsplit=1), tf.strings.split(s)]
    ops = [(op.type, op.name) for op in tf.get_default_graph().get_operations()]
    assert ("StringSplit", "StringSplit/StringSplit") in ops and ("StringSplitV2", "StringSplit_2/StringSplitV2") in ops
    assert results[0].indices.shape.as_list() == [None, 2] and results[0].dense_shape.shape.as_list() == [2]
    split, kept, once, words = _run(results)
    _assert_sparse_value(split, [[0, 0], [0, 1], [0, 2], [2, 0]], [b"a", b"b", b"c", b"d"], [3, 3])
    _assert_sparse_value(kept, [[0, 0], [0, 1], [0, 2], [0, 3], [2, 0]], [b"a", b"b", b"", b"c", b"d"], [3, 4])
    _assert_sparse_value(once, [[0, 0], [0, 1], [1, 0], [2, 0]], [b"a", b"b  c", b"", b"d"], [3, 2])
    _assert_sparse_value(words, [[0, 0], [0, 1], [0, 2], [2, 0]], [b"a", b"b", b"c", b"d"], [3, 3])
    chars = _run(tf.string_split(["ab,c"], delimiter=""))
    _assert_sparse_value(chars, [[0, 0], [0, 1], [0, 2], [0, 3]], [b"a", b"b", b",", b"c"], [1, 4])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        tf.string_split("abc")


def test_strings_split_maxsplit_as_tf():
    """TF's SplitV2, not Python's str.split: maxsplit=0 keeps the string whole, and whitespace splitting that
    reaches maxsplit keeps the (maybe empty) rest. TF's static shape of the result is unknown."""
    s = tf.constant(["", " a  b ", "a,b,"])
    results = [tf.strings.split(s, maxsplit=0), tf.strings.split(s, maxsplit=1), tf.strings.split(s, maxsplit=2),
               tf.strings.split(s, sep=",", maxsplit=2)]
    assert [r.shape.as_list() for r in results] == [[None, None]] * 4
    whole, once, twice, commas = _run(results)
    _assert_sparse_value(whole, [[0, 0], [1, 0], [2, 0]], [b"", b" a  b ", b"a,b,"], [3, 1])
    _assert_sparse_value(once, [[1, 0], [1, 1], [2, 0], [2, 1]], [b"a", b"b ", b"a,b,", b""], [3, 2])
    _assert_sparse_value(twice, [[1, 0], [1, 1], [1, 2], [2, 0]], [b"a", b"b", b"", b"a,b,"], [3, 3])
    _assert_sparse_value(commas, [[0, 0], [1, 0], [2, 0], [2, 1], [2, 2]], [b"", b" a  b ", b"a", b"b", b""], [3, 3])


def test_format_and_unsorted_segment_join():
    """Values recorded from TF 2.21."""
    with tf.Graph().as_default(), tf.Session() as sess:
        formatted = [
            tf.strings.format("x={} y={}", (tf.constant([1, 2, 3]), tf.constant(2.5))),
            tf.strings.format("{}", tf.constant(np.arange(30).reshape(3, 10)), summarize=2),
            tf.strings.format("[{}] ({})", [tf.constant(["a", "b"]), tf.constant([[True, False]])]),
            tf.strings.format("{}", tf.constant(np.arange(8.0, dtype=np.float32).reshape(2, 2, 2) / 3))]
        assert (formatted[0].op.type, formatted[0].shape.as_list()) == ("StringFormat", [])
        assert sess.run(formatted) == [
            b"x=[1 2 3] y=2.5", b"[[0 1 ... 8 9]\n [10 11 ... 18 19]\n [20 21 ... 28 29]]", b'[["a" "b"]] ([[1 0]])',
            b"[[[0 0.333333343]\n  [0.666666687 1]]\n\n [[1.33333337 1.66666663]\n  [2 2.33333325]]]"]
        with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only has 1. Please "
                                             "ensure the number of placeholders in template matches inputs length."):
            tf.strings.format("{} {}", [tf.constant(1)])

        words = tf.strings.unsorted_segment_join(["this", "is", "a", "test"], [0, 0, 1, 1], 3, separator=":")
        rows = tf.strings.unsorted_segment_join([["Y", "q", "c"], ["Y", "6", "6"], ["p", "G", "a"]], [1, 0, 1], 2)
        assert (words.op.type, words.shape.as_list(), rows.shape.as_list()) == ("UnsortedSegmentJoin", [3], [2, 3])
        joined, joined_rows = sess.run([words, rows])
        assert joined.tolist() == [b"this:is", b"a:test", b""]
        assert joined_rows.tolist() == [[b"Y", b"6", b"6"], [b"Yp", b"qG", b"ca"]]
        out_of_range = tf.strings.unsorted_segment_join(["a", "b", "c"], tf.placeholder_with_default([0, 5, 1], [3]), 2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="segment_ids are not allowed to exceed num_segments "
                                                                 "or to have negative values."):
            sess.run(out_of_range)


def test_ngrams():
    """Values recorded from TF 2.21: tf.strings.ngrams of dense tensors, and the StringNGrams op on rows."""
    with tf.Graph().as_default(), tf.Session() as sess:
        pairs = tf.strings.ngrams(tf.constant([["a", "b", "c"], ["d", "e", "f"]]), 2)
        assert (pairs.op.name, pairs.shape.as_list()) == ("StringNGrams/Reshape", [2, None])
        padded = tf.strings.ngrams(tf.constant(["a", "b", "c", "d"]), (1, 3), separator="-", pad_values=("<", ">"))
        short = tf.strings.ngrams(tf.constant(["a", "b"]), 3, preserve_short_sequences=True)
        narrow = tf.strings.ngrams(tf.constant(["a", "b", "c"]), 2, pad_values="#", padding_width=1)
        assert [v.tolist() for v in sess.run([pairs, padded, short, narrow])] == [
            [[b"a b", b"b c"], [b"d e", b"e f"]],
            [b"a", b"b", b"c", b"d", b"<-<-a", b"<-a-b", b"a-b-c", b"b-c-d", b"c-d->", b"d->->"],
            [b"a b"], [b"# a", b"a b", b"b c", b"c #"]]
        data, splits = tf.constant(["a", "b", "c", "d", "e"]), tf.constant([0, 1, 5], tf.int64)

        def rows(**attrs):
            return [v.tolist() for v in sess.run(tf.raw_ops.StringNGrams(data=data, data_splits=splits, **attrs))]

        assert rows(separator="|", ngram_widths=[2, 4], left_pad="L", right_pad="R", pad_width=1,
                    preserve_short_sequences=False) == [
            [b"L|a", b"a|R", b"L|b", b"b|c", b"c|d", b"d|e", b"e|R", b"L|b|c|d", b"b|c|d|e", b"c|d|e|R"], [0, 2, 10]]
        assert rows(separator="|", ngram_widths=[5], left_pad="L", right_pad="R", pad_width=1,
                    preserve_short_sequences=True) == [[b"L|a|R", b"L|b|c|d|e", b"b|c|d|e|R"], [0, 1, 3]]
        with pytest.raises(ValueError, match="pad_values must be provided if padding_width is set."):
            tf.strings.ngrams(tf.constant(["a"]), 2, padding_width=1)


def test_fingerprint_matches_tensorflow():
    long = b"hello world, this is long enough to pass 64 bytes of text for sure!!"
    cases = [  # (data, TF 2.21's fingerprint)
        (np.array([[1, 2], [3, 4]], np.int32), [[76, 18, 253, 133, 168, 204, 240, 10],
                                                [254, 162, 60, 240, 103, 244, 53, 255]]),
        (np.array([b"a", long], object), [[227, 117, 223, 182, 101, 66, 69, 179], [142, 210, 49, 203, 253, 156, 42, 25]]),
        (np.array([[b"a", b"b"]], object), [[122, 64, 59, 169, 136, 60, 55, 83]]),
        (np.array([1.5]), [[179, 164, 179, 195, 72, 236, 82, 76]]),
        (np.arange(40, dtype=np.int64).reshape(2, 20), [[110, 63, 91, 65, 243, 32, 40, 19],
                                                        [120, 252, 244, 65, 177, 169, 107, 202]]),
        (np.array([[True, False]]), [[236, 208, 118, 51, 144, 142, 61, 0]]),
        (np.zeros((0, 3), np.float32), np.zeros((0, 8))),
    ]
    for data, expected in cases:
        check_op(tf.fingerprint, [data], np.array(expected, np.uint8))
    with tf.Graph().as_default():
        assert tf.fingerprint(tf.placeholder(tf.float32, [None, None, 2])).shape.as_list() == [None, 8]
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            tf.fingerprint(tf.constant(1))
        method = tf.placeholder(tf.string)
        with tf.Session() as sess:
            for value, message in (("md5", "Unsupported fingerprint method: md5"),
                                   (["a"], re.escape("`method` should be a scalar string: [1]"))):
                with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                    sess.run(tf.fingerprint([1], method=method), {method: value})


def test_ngrams_rejects_widths_below_one_inside_its_scope():
    with tf.Graph().as_default() as graph:
        with pytest.raises(ValueError, match="All ngram_widths must be greater than 0. Got 0"):
            tf.strings.ngrams(tf.ragged.constant([["a", "b"]]), 0)
        with pytest.raises(ValueError, match=r"All ngram_widths must be greater than 0. Got \(2, -1\)"):
            tf.strings.ngrams(tf.ragged.constant([["a", "b"]]), (2, -1))
        assert graph.unique_name("StringNGrams", mark_as_used=False) == "StringNGrams_2"


def test_decode_raw_checks_equal_lengths_before_item_size():
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeRaw requires input strings to all be the same "
                                                             "size, but element 1 has size 3 != 1"):
        _run(tf.decode_raw([b"\x01\x02\x03", b"\x04"], tf.int16))


def test_reduce_join_node_names():
    with tf.Graph().as_default():
        joined = tf.strings.reduce_join(["a", "b"])
        assert [t.name for t in joined.op.inputs] == ["ReduceJoin/Const:0", "ReduceJoin/Const_1:0"]
        assert tf.reduce_join([["a"]], axis=1).op.inputs[1].name == "ReduceJoin_1/ReduceJoin/reduction_indices:0"


def test_format_and_print_of_ragged_tensors_as_tf(capsys):
    # recorded from TF (ragged_tensor_to_string: values as_string, strings quoted, rows summarized)
    rows = tf.ragged.constant([[1, 2, 3, 4, 5, 6, 7], [], [3]])
    nested = tf.ragged.constant([[[1.5], [2, 3]], [[4, 5, 6, 7]]])
    texts = _run([tf.strings.format("x={} y={}", [tf.ragged.constant([[1], [2, 3]]), tf.constant(4)]),
                  tf.strings.format("r: {}", rows, summarize=2), tf.strings.format("{}", nested, summarize=1),
                  tf.strings.format("{}", tf.ragged.constant([["a'b", "c\\d"], []])),
                  tf.strings.format("{}", tf.ragged.constant([[1, 2]] * 8))])
    assert texts == [b"x=[[1], [2, 3]] y=4", b"r: [[1, 2, ..., 6, 7], [], [3]]",
                     b"[[[1.500000], [2.000000, 3.000000]], [[4.000000, ..., 7.000000]]]", b"[['a\\'b', 'c\\\\d'], []]",
                     b"[[1, 2], [1, 2], [1, 2], ..., [1, 2], [1, 2], [1, 2]]"]
    with tf.Session() as sess:
        sess.run(tf.print("p", tf.ragged.constant([[1, 2], [3]]), tf.constant([1, 2]), output_stream=sys.stdout))
    assert capsys.readouterr().out == "p [[1, 2], [3]] [1 2]\n"


def test_string_ops_take_ragged_tensors_as_tf():
    # TF's ragged dispatch (map_flat_values) of the elementwise string ops; split and unicode_decode of a
    # RaggedTensor keep its partitions (recorded from TF)
    r = tf.ragged.constant([["a b", "c"], ["d,e"]])
    found = _run({"upper": tf.strings.upper(r), "regex": tf.strings.regex_replace(r, "a", "x"),
                  "substr": tf.strings.substr(r, 0, 1), "join": tf.strings.join([r, r], separator="-"),
                  "strip": tf.strings.strip(tf.ragged.constant([[" a"], ["b ", "c"]])),
                  "script": tf.strings.unicode_script(tf.ragged.constant([[72, 0x3B1], []])),
                  "split": tf.strings.split(r, sep=","),
                  "decode": tf.strings.unicode_decode(tf.ragged.constant([["ab"], ["c", "d"]]), "UTF-8")})
    assert found["upper"].to_list() == [[b"A B", b"C"], [b"D,E"]]
    assert found["regex"].to_list() == [[b"x b", b"c"], [b"d,e"]]
    assert found["substr"].to_list() == [[b"a", b"c"], [b"d"]]
    assert found["join"].to_list() == [[b"a b-a b", b"c-c"], [b"d,e-d,e"]]
    assert found["strip"].to_list() == [[b"a"], [b"b", b"c"]]
    assert found["script"].to_list() == [[25, 14], []]
    split = found["split"]
    assert split.indices.tolist() == [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1]]
    assert split.values.tolist() == [b"a b", b"c", b"d", b"e"] and split.dense_shape.tolist() == [2, 2, 2]
    assert found["decode"].to_list() == [[[97, 98]], [[99], [100]]]
    with pytest.raises(TypeError):  # TF1's tf.strings.to_number has no ragged dispatch
        tf.strings.to_number(tf.ragged.constant([["1"]]))


def test_unicode_replacement_char_and_rank_checks():
    for fetch in [tf.strings.unicode_decode(["a"], "UTF-8", errors="replace", replacement_char=-1),
                  tf.strings.unicode_transcode(["a"], "UTF-8", "UTF-8", replacement_char=0x110000),
                  tf.strings.unicode_encode([[97]], "UTF-8", replacement_char=-2)]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(fetch)
        assert runtime_message(info.value).split("\n")[0] == "replacement_char out of unicode codepoint range"
    assert _run(tf.strings.unicode_decode(["a"], "UTF-8", replacement_char=0x10FFFF)).to_list() == [[97]]
    with pytest.raises(ValueError, match=r"^input_tensor's rank must be at least 1\.$"):
        tf.strings.unicode_encode(tf.constant(97), "UTF-8")


def test_format_and_print_keep_bytes_that_are_not_utf8(tmp_path):
    # recorded from TF: absl::Utf8SafeCEscape passes bytes of 0x80 and up through, UTF-8 or not
    assert _run(tf.strings.format("{} x", tf.constant([b"\xff", b"a\x01", "\u00e9".encode()]))) == (
        b'["\xff" "a\\001" "\xc3\xa9"] x')
    path = tmp_path / "out.txt"
    with tf.Session() as sess:
        for _ in range(2):  # appended
            sess.run(tf.print(tf.constant([b"\xfe"]), "t", output_stream=f"file://{path}"))
    assert path.read_bytes() == b'["\xfe"] t\n["\xfe"] t\n'
