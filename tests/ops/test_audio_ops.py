"""DecodeWav / EncodeWav: bytes, values and errors recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

STEREO = np.array([[0.5, -0.5], [1.0, -1.0], [0.25, 0.0]], np.float32)
STEREO_WAV = (b"RIFF0\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x80>\x00\x00\x00\xfa\x00\x00\x04\x00\x10\x00"
              b"data\x0c\x00\x00\x00\x00@\x00\xc0\xff\x7f\x00\x80\x00 \x00\x00")
MONO_WAV = (b"RIFF(\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00\x02\x00\x10\x00"
            b"data\x04\x00\x00\x00\xff\x7f\x00\x80")
DECODED = np.array([[0.5, -0.5], [0.9999695, -1.0], [0.25, 0.0]], np.float32)


def test_encode_and_decode_match_tf_bytes_and_values():
    with tf.Graph().as_default(), tf.Session() as sess:
        encoded = tf.audio.encode_wav(STEREO, 16000)
        decoded = tf.audio.decode_wav(encoded)
        one = tf.audio.decode_wav(encoded, desired_channels=1, desired_samples=5)
        three = tf.audio.decode_wav(encoded, desired_channels=3)
        assert encoded.shape.ndims == 0 and decoded.audio.shape.as_list() == [None, None]
        assert one.audio.shape.as_list() == [5, 1] and decoded.sample_rate.shape.ndims == 0
        wav, (audio, rate), (audio1, _), (audio3, _) = sess.run([encoded, decoded, one, three])
        clipped = sess.run(tf.audio.encode_wav([[2.0], [-3.0]], 8000))
    assert wav == STEREO_WAV and clipped == MONO_WAV
    assert rate == 16000 and audio.dtype == np.float32
    np.testing.assert_allclose(audio, DECODED, rtol=1e-6)
    np.testing.assert_allclose(audio1, [[0.5], [0.9999695], [0.25], [0.0], [0.0]], rtol=1e-6)
    np.testing.assert_allclose(audio3, np.concatenate([DECODED, DECODED[:, 1:]], axis=1), rtol=1e-6)


def test_other_chunks_before_the_data_are_skipped():
    wav = MONO_WAV[:36] + b"LIST\x02\x00\x00\x00ab" + MONO_WAV[36:]
    with tf.Graph().as_default(), tf.Session() as sess:
        audio, rate = sess.run(tf.audio.decode_wav(wav))
    np.testing.assert_allclose(audio, [[0.9999695], [-1.0]], rtol=1e-6)
    assert rate == 8000


@pytest.mark.parametrize("contents, message", [
    (b"abc", "Data too short when trying to read string"),
    (b"RIFX" + MONO_WAV[4:], "Header mismatch: Expected RIFF but found RIFX"),
    (MONO_WAV[:8] + b"WAVX" + MONO_WAV[12:], "Header mismatch: Expected WAVE but found WAVX"),
    (MONO_WAV[:12] + b"fmx " + MONO_WAV[16:], "Unexpected field fmx "),
    (MONO_WAV[:20] + b"\x03\x00" + MONO_WAV[22:], r"Bad audio format for WAV: Expected 1 \(PCM\), but got3"),
    (MONO_WAV[:22] + b"\x00\x00" + MONO_WAV[24:], "Bad number of channels for WAV: Expected at least 1, but got 0"),
    (MONO_WAV[:34] + b"\x08\x00" + MONO_WAV[36:], "Can only read 16-bit WAV files, but received 8"),
    (MONO_WAV[:36] + b"datx" + MONO_WAV[40:], "No data chunk found in WAV"),
    (MONO_WAV[:-1], "Data too short when trying to read string"),
])
def test_decode_errors_like_tf(contents, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        op = tf.audio.decode_wav(tf.constant(contents), name="dec")
        with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
            sess.run(op)
    assert info.value.op.name == "dec"


def test_encode_rank_check_at_build():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Shape must be rank 2 but is rank 1 for '\{\{node EncodeWav\}\} = "
                                             r"EncodeWav\[\]\(Const, EncodeWav/sample_rate\)' with input shapes: "
                                             r"\[2\], \[\]\."):
            tf.audio.encode_wav(tf.constant([1.0, 2.0]), 16000)
