"""`tf.image.decode_webp` (DecodeWebP): stills and animations as FxHxWxC, TF 2.21's shapes and messages."""

import io

import numpy as np
import pytest
from PIL import Image

import tensorweave.compat.v1 as tf

_PIXELS = (np.arange(4 * 5 * 3) % 256).astype(np.uint8).reshape(4, 5, 3)


def _webp(frames: list[np.ndarray], mode: str) -> bytes:
    images = [Image.fromarray(f).convert(mode) for f in frames]
    out = io.BytesIO()
    images[0].save(out, format="WEBP", lossless=True, save_all=len(images) > 1, append_images=images[1:],
                   duration=100)
    return out.getvalue()


def test_decode_webp_gives_frames_of_the_files_channels():
    rgba = np.concatenate([_PIXELS, np.full((4, 5, 1), 200, np.uint8)], axis=2)
    frames = [((_PIXELS.astype(int) + 40 * i) % 256).astype(np.uint8) for i in range(3)]
    with tf.Graph().as_default(), tf.Session() as sess:
        still = tf.image.decode_webp(_webp([_PIXELS], "RGB"), channels=3)
        assert still.shape.as_list() == [None, None, None, 3]
        np.testing.assert_array_equal(sess.run(still), _PIXELS[None])
        np.testing.assert_array_equal(sess.run(tf.image.decode_webp(_webp([rgba], "RGBA"))), rgba[None])
        animation = sess.run(tf.io.decode_webp(_webp(frames, "RGBA")))
        assert animation.shape == (3, 4, 5, 4) and animation.dtype == np.uint8
        np.testing.assert_array_equal(animation[2, ..., :3], frames[2])
        for contents, channels, message in [(_webp([_PIXELS], "RGB"), 4, "Number of channels requested does not "
                                             "match input"),
                                            (b"notwebp", 0, "Unknown image file format. One of JPEG, JPEG XL, PNG, "
                                             "GIF, BMP, WebP required."),
                                            (b"RIFF1234WEBPVP8 xxxx", 0, "Failed to decode WebP header.")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(tf.image.decode_webp(contents, channels=channels))
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.image.decode_webp(tf.constant(["a"]))
