"""The FFT ops and `tf.signal`/`tf.spectral` against NumPy's FFT and values, shapes and messages recorded from
real TensorFlow 2.21 (`tf.compat.v1`), and the gradients TF defines for the transforms."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

RNG = np.random.RandomState(7)
C64 = (RNG.randn(2, 3, 4) + 1j * RNG.randn(2, 3, 4)).astype(np.complex64)
REAL = np.array([[0.5, -1.0, 2.0, 0.25, 1.5, -0.75], [1.0, 0.0, -2.0, 3.0, 0.5, 1.25]], np.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_transforms_match_numpy(dtype):
    x = C64.astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-5)
    for rank, forward, inverse in ((1, tf.fft, tf.ifft), (2, tf.signal.fft2d, tf.signal.ifft2d),
                                   (3, tf.spectral.fft3d, tf.spectral.ifft3d)):
        axes = tuple(range(-rank, 0))
        check_op(forward, [x], np.fft.fftn(x, axes=axes).astype(dtype), **tol)
        check_op(inverse, [x], np.fft.ifftn(x, axes=axes).astype(dtype), **tol)


def test_real_transforms_crop_pad_and_infer_lengths():
    x = RNG.randn(2, 3, 6).astype(np.float32)
    tol = dict(rtol=1e-5, atol=1e-5)
    check_op(tf.signal.rfft, [x], np.fft.rfft(x).astype(np.complex64), **tol)
    check_op(lambda t: tf.signal.rfft(t, [4]), [x], np.fft.rfft(x, 4).astype(np.complex64), **tol)
    check_op(lambda t: tf.signal.rfft(t, [9]), [x], np.fft.rfft(x, 9).astype(np.complex64), **tol)
    check_op(lambda t: tf.spectral.rfft2d(t, [2, 8]), [x.astype(np.float64)], np.fft.rfft2(x.astype(np.float64), (2, 8)), **tol)
    check_op(tf.signal.rfft3d, [x], np.fft.rfftn(x).astype(np.complex64), **tol)
    check_op(tf.signal.irfft, [C64], np.fft.irfft(C64).astype(np.float32), **tol)
    check_op(lambda t: tf.signal.irfft(t, [5]), [C64], np.fft.irfft(C64, 5).astype(np.float32), **tol)
    check_op(lambda t: tf.signal.irfft(t, [10]), [C64], np.fft.irfft(C64, 10).astype(np.float32), **tol)
    check_op(tf.signal.irfft2d, [C64.astype(np.complex128)], np.fft.irfft2(C64.astype(np.complex128)), **tol)
    check_op(lambda t: tf.signal.irfft3d(t, [2, 3, 4]), [C64], np.fft.irfftn(C64, (2, 3, 4), axes=(0, 1, 2)).astype(np.float32),
             **tol)
    # The raw op crops a long input itself.
    check_op(lambda t: tf.raw_ops.RFFT(input=t, fft_length=[4]), [x], np.fft.rfft(x[..., :4]).astype(np.complex64),
             **tol)


def test_nd_transforms_and_norms():
    tol = dict(rtol=1e-5, atol=1e-5)
    check_op(tf.signal.fftnd, [C64], np.fft.fftn(C64).astype(np.complex64), **tol)
    check_op(lambda t: tf.signal.fftnd(t, axes=[-2, -1], norm="ortho"), [C64],
             np.fft.fftn(C64, axes=(-2, -1), norm="ortho").astype(np.complex64), **tol)
    check_op(lambda t: tf.signal.ifftnd(t, [3, 4], axes=[1, 2], norm="forward"), [C64],
             np.fft.ifftn(C64, axes=(1, 2), norm="forward").astype(np.complex64), **tol)
    x = RNG.randn(3, 4).astype(np.float64)
    check_op(tf.signal.rfftnd, [x], np.fft.rfftn(x), **tol)
    check_op(lambda t: tf.signal.irfftnd(t, [3, 6]), [np.fft.rfftn(x, (3, 6), axes=(0, 1))], np.fft.irfftn(np.fft.rfftn(x, (3, 6), axes=(0, 1)), axes=(0, 1)),
             **tol)
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="axes must be successive and ascending."):
            sess.run(tf.fftnd(tf.zeros([3, 3, 3], tf.complex64), [3, 3], [0, 2]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="The last axis to perform transform on must be -1."):
            sess.run(tf.fftnd(tf.zeros([3, 3], tf.complex64), [3], [0]))


def test_fft_static_shapes_and_build_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4])
        assert tf.signal.rfft(x).shape.as_list() == [2, 3, 3]
        assert tf.raw_ops.RFFT(input=x, fft_length=[6]).shape.as_list() == [2, 3, 4]
        assert tf.raw_ops.RFFT(input=x, fft_length=tf.placeholder(tf.int32, [1])).shape.as_list() == [2, 3, None]
        assert tf.raw_ops.IRFFT2D(input=tf.cast(x, tf.complex64), fft_length=[5, 6]).shape.as_list() == [2, 5, 6]
        assert tf.signal.fft2d(tf.placeholder(tf.complex128, [None, 3, 4])).shape.as_list() == [None, 3, 4]
        assert tf.signal.irfft(tf.placeholder(tf.complex64, [2, None])).shape.as_list() == [None, None]
        assert tf.signal.fft(tf.zeros([3], tf.complex64)).op.type == "FFT"
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            tf.fft(tf.constant(1 + 0j, tf.complex64))
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            tf.fft2d(tf.zeros([3], tf.complex64))
        with pytest.raises(ValueError, match="Dimension must be 1 but is 2"):
            tf.raw_ops.RFFT(input=x, fft_length=[6, 3])
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
            tf.raw_ops.RFFT(input=x, fft_length=6)
        with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs, got: "):
            tf.signal.rfft(tf.zeros([3], tf.int32))
        with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128 inputs, got: "):
            tf.signal.irfft(tf.zeros([3]))


def test_fft_runtime_errors_name_the_node():
    with tf.Graph().as_default(), tf.Session() as sess:
        length = tf.placeholder(tf.int32, [1])
        short = tf.raw_ops.RFFT(input=tf.zeros([4]), fft_length=length, name="short")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Input dimension 0 must have length of at least 6 but got: 4") as info:
            sess.run(short, {length: [6]})
        assert info.value.op.name == "short"
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"fft_length\[0\] must >= 0, but got: -1"):
            sess.run(short, {length: [-1]})
        spectrum = tf.raw_ops.IRFFT(input=tf.zeros([2], tf.complex64), fft_length=length)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Input dimension 0 must have length of at least 4 but got: 2"):
            sess.run(spectrum, {length: [6]})
        signal = tf.placeholder(tf.complex64)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input must have rank of at least 2 but got: \[3\]"):
            sess.run(tf.fft2d(signal), {signal: np.zeros(3, np.complex64)})


def test_fft_gradients():
    x = RNG.randn(2, 5)
    y = RNG.randn(2, 5)
    weights = RNG.randn(2, 5)
    for forward in (tf.fft, tf.ifft, tf.fft2d, tf.ifft2d, tf.fft3d):
        def build(a, b, forward=forward):
            z = forward(tf.complex(a, b)[None] if forward in (tf.fft3d,) else tf.complex(a, b))
            return tf.real(z) * weights + tf.imag(z) * weights[::-1]
        check_gradient(build, [x, y])
    check_gradient(lambda a: tf.real(tf.signal.rfft(a)) + 2 * tf.imag(tf.signal.rfft(a)), [x])
    check_gradient(lambda a: tf.real(tf.signal.rfft(a, [8])) * tf.imag(tf.signal.rfft(a, [8])), [RNG.randn(3, 5)])
    check_gradient(lambda a: tf.real(tf.signal.rfft2d(a)) - tf.imag(tf.signal.rfft2d(a)), [RNG.randn(3, 4)])
    check_gradient(lambda a, b: tf.signal.irfft(tf.complex(a, b)) * weights[:, :8].sum(), [RNG.randn(2, 5),
                                                                                        RNG.randn(2, 5)])
    check_gradient(lambda a, b: tf.signal.irfft(tf.complex(a, b), [7]) * RNG.randn(7), [x[:, :4], y[:, :4]])
    check_gradient(lambda a, b: tf.signal.irfft2d(tf.complex(a, b)) * RNG.randn(3, 6),
                   [RNG.randn(3, 4), RNG.randn(3, 4)])
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2, 2, 4])
        with pytest.raises(LookupError, match="RFFT3D"):
            tf.gradients(tf.real(tf.signal.rfft3d(a)), a)


# Recorded from TF 2.21 on REAL.
TF_VALUES = {
    "hann7": [0.0, 0.25, 0.75, 1.0, 0.75, 0.25, 0.0],
    "hann8_sym": [0.0, 0.18826, 0.61126, 0.95048, 0.95048, 0.61126, 0.18826, 0.0],
    "kaiser7": [5e-05, 0.05476, 0.51884, 1.0, 0.51884, 0.05476, 5e-05],
    "kbd8": [0.00607, 0.38821, 0.92157, 0.99998, 0.99998, 0.92157, 0.38821, 0.00607],
    "vorbis6": [0.10503, 0.70711, 0.99447, 0.99447, 0.70711, 0.10503],
    "dct1": [[5.25, -1.71353, -3.58156, -0.03647, 0.33156, 9.75], [5.25, -4.14919, 0.94098, 8.14919, 2.05902, -9.25]],
    "dct2": [[5.0, -0.21485, -4.33013, 2.82843, 1.0, 7.56332], [7.5, -3.77826, 2.16506, 7.42462, 2.25, -9.08156]],
    "dct2o": [[1.02062, -0.06202, -1.25, 0.8165, 0.28868, 2.18334], [1.53093, -1.09069, 0.625, 2.1433, 0.64952,
                                                                     -2.62162]],
    "dct3": [[3.49757, -3.20711, -3.78418, 0.85598, -1.79289, 7.43063], [2.92559, -6.01041, 3.13628, 6.79193, 6.01041,
                                                                         -6.85379]],
    "dct3o": [[1.06945, -0.86603, -1.03261, 0.30689, -0.45778, 2.20482], [0.96412, -1.61548, 1.02494, 2.08023, 1.85463,
                                                                          -1.85895]],
    "dct4": [[3.57374, -4.03177, -0.61383, 2.47212, 3.20075, 7.19307], [3.17104, -4.04537, 7.21511, 5.32223, -3.29924,
                                                                        -8.48885]],
    "dct4o": [[1.03165, -1.16387, -0.1772, 0.71364, 0.92398, 2.07646], [0.9154, -1.1678, 2.08282, 1.5364, -0.95241,
                                                                        -2.45052]],
    "idct2_n4": [[1.67201, -3.55573, -1.10112, 4.98484], [0.46767, -1.71485, 9.3717, -4.12453]],
    "idct2_n8": [[3.93765, -0.37989, -5.04622, -2.98937, 0.84097, -1.25789, 0.19872, 8.69603],
                 [4.38933, -4.86035, -3.57336, 4.14788, 6.65737, 7.22061, 2.38466, -8.36615]],
    "mel": [[0.0, 0.0, 0.0], [0.35816, 0.64184, 0.0], [0.0, 0.24174, 0.75826], [0.0, 0.0, 0.46212], [0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0]],
    "mfcc": [[1.44338, -0.06202, -1.25, 0.8165, 0.28868, 2.18334], [2.16506, -1.09069, 0.625, 2.1433, 0.64952,
                                                                    -2.62162]],
    "mdct": [[[-2.87104, -3.54378]], [[2.50874, 0.54555]]],
    "ola": [[0.5, 1.0, 1.75, -0.75], [1.0, -2.0, 3.5, 1.25]],
}

SIGNAL_BUILDERS = {
    "hann7": lambda x: tf.signal.hann_window(7),
    "hann8_sym": lambda x: tf.signal.hann_window(8, periodic=False),
    "kaiser7": lambda x: tf.signal.kaiser_window(7),
    "kbd8": lambda x: tf.signal.kaiser_bessel_derived_window(8),
    "vorbis6": lambda x: tf.signal.vorbis_window(6),
    "dct1": lambda x: tf.signal.dct(x, type=1),
    "dct2": lambda x: tf.signal.dct(x),
    "dct2o": lambda x: tf.signal.dct(x, norm="ortho"),
    "dct3": lambda x: tf.spectral.dct(x, type=3),
    "dct3o": lambda x: tf.signal.dct(x, type=3, norm="ortho"),
    "dct4": lambda x: tf.signal.dct(x, type=4),
    "dct4o": lambda x: tf.signal.dct(x, type=4, norm="ortho"),
    "idct2_n4": lambda x: tf.spectral.idct(x, n=4),
    "idct2_n8": lambda x: tf.signal.idct(x, n=8),
    "mel": lambda x: tf.signal.linear_to_mel_weight_matrix(3, 6, 8000, 100., 3000.),
    "mfcc": tf.signal.mfccs_from_log_mel_spectrograms,
    "mdct": lambda x: tf.signal.mdct(x[:, :4], 4),
    "ola": lambda x: tf.signal.overlap_and_add(tf.reshape(x, [2, 3, 2]), 1),
}


@pytest.mark.parametrize("key", sorted(TF_VALUES))
def test_signal_functions_match_tf(key):
    check_op(SIGNAL_BUILDERS[key], [REAL], np.array(TF_VALUES[key], np.float32), atol=2e-5, rtol=1e-5)


def test_window_dtype_and_dynamic_length():
    check_op(lambda x: tf.signal.hamming_window(6, dtype=tf.float64), [REAL], np.array([0.08, 0.31, 0.77, 1, 0.77, 0.31]))
    with tf.Graph().as_default(), tf.Session() as sess:
        n = tf.placeholder(tf.int32, [])
        window = tf.signal.hann_window(n)
        assert window.shape.as_list() == [None]
        np.testing.assert_allclose(sess.run(window, {n: 7}), TF_VALUES["hann7"], atol=1e-6)
        np.testing.assert_array_equal(sess.run(window, {n: 1}), [1.0])
        with pytest.raises(ValueError, match="dtype must be a floating point type. Found <dtype: 'int32'>"):
            tf.signal.hann_window(4, dtype=tf.int32)


def test_frame_and_overlap_and_add():
    signal = np.arange(2 * 10, dtype=np.float32).reshape(2, 10)
    starts = np.arange(3)[:, None] * 3 + np.arange(4)
    check_op(lambda s: tf.signal.frame(s, 4, 3), [signal], signal[:, starts])
    padded = np.concatenate([signal, np.full((2, 3), -1, np.float32)], axis=1)
    check_op(lambda s: tf.signal.frame(s, 4, 3, pad_end=True, pad_value=-1), [signal],
             padded[:, np.arange(4)[:, None] * 3 + np.arange(4)])
    check_op(lambda s: tf.signal.frame(s, 2, 1, axis=0), [signal], signal[None])
    frames = RNG.randn(2, 4, 5).astype(np.float32)
    expected = np.zeros((2, 5 + 2 * 3), np.float32)
    for i in range(4):
        expected[:, 2 * i:2 * i + 5] += frames[:, i]
    check_op(lambda f: tf.signal.overlap_and_add(f, 2), [frames], expected, rtol=1e-5, atol=1e-5)
    check_gradient(lambda s: tf.signal.frame(s, 4, 2, pad_end=True), [RNG.randn(2, 9)])
    check_gradient(lambda f: tf.signal.overlap_and_add(f, 3), [RNG.randn(3, 4, 5)])
    with tf.Graph().as_default():
        s = tf.placeholder(tf.float32, [None, 10])
        assert tf.signal.frame(s, 4, 3).shape.as_list() == [None, 3, 4]
        assert tf.signal.frame(s, tf.placeholder(tf.int32, []), 3).shape.as_list() == [None, None, None]
        assert tf.signal.overlap_and_add(tf.placeholder(tf.float32, [3, 4, 5]), 2).shape.as_list() == [3, 11]
        with pytest.raises(ValueError, match="frame_step must be an integer. Got <dtype: 'float32'>"):
            tf.signal.overlap_and_add(tf.zeros([3, 4]), 2.0)
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0|must have rank at least 1"):
            tf.signal.frame(1.0, 1, 1)


def test_stft_round_trip_and_tf_values():
    stft = check_op(lambda s: tf.signal.stft(s, 4, 2), [REAL], np.array(
        [[[1.625, -2 + 0.625j, 2.375], [1.25, -1.5 - 0.5j, 1.75]],
         [[-0.5, 2 + 1.5j, -3.5], [2.625, -0.5 - 0.875j, -1.625]]], np.complex64), atol=1e-5)[0][0]
    assert stft.shape == (2, 2, 3)
    signal = RNG.randn(2, 32).astype(np.float64)
    window_fn = tf.signal.inverse_stft_window_fn(4)
    with tf.Graph().as_default(), tf.Session() as sess:
        spectra = tf.signal.stft(signal, 16, 4)
        assert spectra.shape.as_list() == [2, 5, 9]
        restored = sess.run(tf.signal.inverse_stft(spectra, 16, 4, window_fn=window_fn))
        # Perfect reconstruction away from the edges that fewer frames cover.
        np.testing.assert_allclose(restored[:, 12:20], signal[:, 12:20], atol=1e-10)
        mdcts = tf.signal.mdct(signal, 8)
        np.testing.assert_allclose(sess.run(tf.signal.inverse_mdct(mdcts))[:, 4:-4], signal[:, 4:-4], atol=1e-10)


def test_dct_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Normalization is not supported for the Type-I DCT."):
            tf.signal.dct(REAL, type=1, norm="ortho")
        with pytest.raises(ValueError, match="Type-I DCT requires the dimension to be greater than one."):
            tf.signal.dct(tf.zeros([3, 1]), type=1)
        with pytest.raises(ValueError, match="Types I, II, III and IV"):
            tf.signal.dct(REAL, type=5)
        with pytest.raises(NotImplementedError, match="axis must be -1. Got: 0"):
            tf.signal.idct(REAL, axis=0)
        with pytest.raises(ValueError, match="lower_edge_hertz 100.0 >= upper_edge_hertz 50.0"):
            tf.signal.linear_to_mel_weight_matrix(lower_edge_hertz=100.0, upper_edge_hertz=50.0)


def test_fftshift_matches_numpy():
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    check_op(tf.signal.fftshift, [x], np.fft.fftshift(x))
    check_op(tf.signal.ifftshift, [x], np.fft.ifftshift(x))
    check_op(lambda t: tf.signal.fftshift(t, axes=0), [x], np.fft.fftshift(x, axes=0))
    check_op(lambda t: tf.signal.ifftshift(t, axes=[-1, 0]), [x], np.fft.ifftshift(x, axes=(-1, 0)))


def test_frame_step_zero_builds_and_fails_at_run_time():
    """TF infers 0 frames (NumPy's integer division by zero) and its FloorDiv kernel then fails."""
    with tf.Graph().as_default():
        frames = tf.signal.frame(np.arange(16, dtype=np.float32), 3, 0)
        assert frames.shape.as_list() == [0, 3]
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            sess.run(frames)


def test_frame_gathers_subframes_so_its_gradient_is_dense():
    """TF frames through a strided slice into gcd(length, step)-sample subframes: the gradient is a Tensor."""
    with tf.Graph().as_default():
        signal = tf.constant(np.arange(10, dtype=np.float32))
        frames = tf.signal.frame(signal, 4, 2, pad_end=True)
        assert frames.op.type == "Reshape" and frames.shape.as_list() == [5, 4]
        (grad,) = tf.gradients(tf.reduce_sum(frames), signal)
        assert isinstance(grad, tf.Tensor)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(grad), [1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
