"""tf.compat's string and type helpers and forward-compatibility date, tf.version, and the TF2 behaviour toggles
TF1-on-TF2 programs call at startup. Expected values recorded from TF 2.21's `tf.compat.v1`."""

import numbers
import pathlib

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


@pytest.mark.parametrize("value, expected", [
    (b"ab", b"ab"), ("ab", b"ab"), (bytearray(b"ab"), b"ab"), ("é", b"\xc3\xa9"),
])
def test_as_bytes(value, expected):
    assert tf.compat.as_bytes(value) == expected
    assert type(tf.compat.as_bytes(value)) is bytes


@pytest.mark.parametrize("value, expected", [(b"ab", "ab"), ("ab", "ab"), (b"\xc3\xa9", "é")])
def test_as_text_and_as_str(value, expected):
    assert tf.compat.as_text(value) == tf.compat.as_str(value) == expected


@pytest.mark.parametrize("convert", ["as_bytes", "as_text", "as_str"])
@pytest.mark.parametrize("value", [1, None])
def test_string_conversions_reject_non_strings(convert, value):
    with pytest.raises(TypeError, match=f"^Expected binary or unicode string, got {value}$"):
        getattr(tf.compat, convert)(value)


def test_as_text_rejects_bytearray_and_honours_encoding():
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got bytearray\(b'ab'\)$"):
        tf.compat.as_text(bytearray(b"ab"))
    assert tf.compat.as_bytes("é", "latin-1") == b"\xe9"
    assert tf.compat.as_text(b"\xe9", "latin-1") == "é"
    with pytest.raises(UnicodeDecodeError):
        tf.compat.as_text(b"\xff")
    with pytest.raises(UnicodeEncodeError):
        tf.compat.as_bytes("é", "ascii")


def test_as_str_any_and_path_to_str():
    assert tf.compat.as_str_any(b"x") == "x"
    assert tf.compat.as_str_any([1]) == "[1]"
    assert tf.compat.as_str_any(None) == "None"
    assert tf.compat.as_str_any(bytearray(b"ab")) == "bytearray(b'ab')"
    assert tf.compat.as_str_any(b"\xe9", "latin-1") == "é"
    assert tf.compat.path_to_str(pathlib.Path("/a/b")) == "/a/b"
    assert tf.compat.path_to_str(b"/a") == b"/a"
    assert tf.compat.path_to_str(3) == 3


def test_type_tuples():
    assert tf.compat.bytes_or_text_types == (bytes, str)
    assert tf.compat.integral_types == (numbers.Integral, np.integer)
    assert tf.compat.real_types == (numbers.Real, np.integer, np.floating)
    assert tf.compat.complex_types == (numbers.Complex, np.number)


def test_compat_v1_is_this_api_and_dimension_helpers_are_the_top_level_ones():
    assert tf.compat.v1 is tf
    assert tf.compat.dimension_value is tf.dimension_value
    assert tf.compat.dimension_at_index is tf.dimension_at_index


def test_forward_compatible_against_tf_2_21s_horizon():
    assert tf.compat.forward_compatible(2026, 1, 15)
    assert not tf.compat.forward_compatible(2026, 1, 16)
    with tf.compat.forward_compatibility_horizon(2030, 1, 1) as inside:
        assert inside is None
        assert tf.compat.forward_compatible(2029, 12, 31)
    assert not tf.compat.forward_compatible(2029, 12, 31)


def test_forward_compatibility_horizon_in_the_past_is_ignored(caplog):
    with tf.compat.forward_compatibility_horizon(2020, 1, 1):
        assert tf.compat.forward_compatible(2026, 1, 15)
    assert ("Trying to set the forward compatibility date to the past date 2020-01-01. This will be ignored by "
            "TensorFlow.") in caplog.text
    with pytest.raises(ValueError, match="^month must be in 1..12$"):
        with tf.compat.forward_compatibility_horizon(2020, 13, 1):
            pass


def test_version_namespace():
    assert tf.version.VERSION == "2.21.0"
    assert tf.version.GRAPH_DEF_VERSION == 2474
    assert (tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER, tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER) == (0, 0)
    assert (tf.version.GIT_VERSION, tf.version.COMPILER_VERSION) == (tf.GIT_VERSION, tf.COMPILER_VERSION)


def test_queries_report_tf1_behaviour():
    assert tf.resource_variables_enabled() is False
    assert tf.control_flow_v2_enabled() is False
    assert tf.executing_eagerly() is False
