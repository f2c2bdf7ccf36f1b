"""Erf, Erfc and Lgamma over wide ranges against values recorded from real TensorFlow 2.21 (`tf.compat.v1`),
to a bound in ulps (erf and erfc are TF's Eigen forms, float32 erf to the bit; lgamma float64 values, rounded
once for float32, within a few ulps of TF's C library), with the edges exact: signed zeros, infinities, nan, the poles of lgamma. And top_k's partition path against a full
stable sort on rows with ties and signed zeros; its order with sorted=False and with NaN as TF's."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

inf, nan = np.inf, np.nan
ERF_X = np.concatenate([np.linspace(-6, 6, 25), np.linspace(0.05, 1.2, 10),
                        [10.0, 20.0, 26.0, 27.0, 1e-300, -1e-10, 1e-5, 0.0, -0.0, inf, -inf, nan]])
LGAMMA_X = np.concatenate([np.linspace(-9.75, 20.25, 25),
                           [1 - 1e-8, 1 + 1e-8, 2 - 1e-7, 2 + 1e-7, 0.5, 1.5, 2.5, 13.0, 12.99, 1e-300, 1e10, 1e300,
                            2.6e305, -0.5, -1e-20, -1.5, -30.5, -100.25, -2.5, 0.0, -0.0, -1.0, -2.0, -1e10, inf, -inf,
                            nan]])

# tf.math.erf / erfc (ERF_X) and tf.math.lgamma (LGAMMA_X) in float64 and float32, recorded from real TF 2.21
ERF_64 = [
    -1.0, -0.9999999999999927, -0.9999999999984626, -0.9999999998033839, -0.9999999845827421,
    -0.9999992569016276, -0.9999779095030015, -0.999593047982555, -0.9953222650189528, -0.9661051464753108,
    -0.8427007929497148, -0.5204998778130466, 0.0, 0.5204998778130466, 0.8427007929497148, 0.9661051464753108,
    0.9953222650189527, 0.999593047982555, 0.9999779095030014, 0.9999992569016276, 0.9999999845827421,
    0.9999999998033839, 0.9999999999984626, 0.9999999999999927, 1.0, 0.05637197779701663, 0.1985073037291838,
    0.33434638982854403, 0.4600085213704406, 0.5725314516112245, 0.6700606310644404, 0.7518854429581793,
    0.8183350392598966, 0.8705694305424782, 0.9103139782296354, 1.0, 1.0, 1.0, 1.0, 1.1283791670955126e-300,
    -1.1283791670955126e-10, 1.1283791670579e-05, 0.0, -0.0, nan, nan, nan]

ERF_32 = [
    -1.0, -1.0, -1.0, -1.0, -1.0, -0.9999994039535522, -0.9999780058860779, -0.9995929598808289,
    -0.9953223466873169, -0.9661051034927368, -0.8427008390426636, -0.5204998850822449, 0.0, 0.5204998850822449,
    0.8427008390426636, 0.9661051034927368, 0.9953223466873169, 0.9995929598808289, 0.9999780058860779,
    0.9999994039535522, 1.0, 1.0, 1.0, 1.0, 1.0, 0.05637197196483612, 0.19850729405879974, 0.3343464136123657,
    0.46000853180885315, 0.5725314021110535, 0.6700606346130371, 0.7518855333328247, 0.8183350563049316,
    0.8705694079399109, 0.9103140234947205, 1.0, 1.0, 1.0, 1.0, 0.0, -1.1283791262473031e-10,
    1.1283790627203416e-05, 0.0, -0.0, 1.0, -1.0, nan]

ERFC_64 = [
    2.0, 1.9999999999999927, 1.9999999999984626, 1.999999999803384, 1.999999984582742, 1.9999992569016276,
    1.9999779095030015, 1.999593047982555, 1.9953222650189528, 1.9661051464753108, 1.8427007929497148,
    1.5204998778130467, 1.0, 0.47950012218695337, 0.15729920705028522, 0.03389485352468927, 0.004677734981047266,
    0.00040695201744495903, 2.209049699858544e-05, 7.430983723414127e-07, 1.5417257900280017e-08,
    1.9661604415428878e-10, 1.5374597944280347e-12, 7.357847917974397e-15, 2.151973671249891e-17,
    0.9436280222029834, 0.8014926962708162, 0.665653610171456, 0.5399914786295594, 0.42746854838877546,
    0.32993936893555964, 0.24811455704182073, 0.1816649607401034, 0.12943056945752182, 0.08968602177036461,
    2.0884875837625443e-45, 5.3958656116079026e-176, 5.663192408856143e-296, 0.0, 1.0, 1.000000000112838,
    0.9999887162083294, 1.0, 1.0, 0.0, 2.0, nan]

ERFC_32 = [
    2.0, 2.0, 2.0, 2.0, 2.0, 1.9999992847442627, 1.999977946281433, 1.9995930194854736, 1.9953222274780273,
    1.9661051034927368, 1.842700719833374, 1.5204999446868896, 1.0, 0.4795001149177551, 0.1572992205619812,
    0.0338948555290699, 0.004677735269069672, 0.00040695202187635005, 2.2090496713644825e-05,
    7.430984396705753e-07, 1.5417258580896487e-08, 1.966160151356533e-10, 1.537460046427408e-12,
    7.35784741104752e-15, 2.151973725591623e-17, 0.9436280131340027, 0.8014926910400391, 0.6656535863876343,
    0.5399914979934692, 0.42746859788894653, 0.3299393057823181, 0.24811458587646484, 0.18166494369506836,
    0.12943056225776672, 0.08968599885702133, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.9999887347221375, 1.0, 1.0, 0.0,
    2.0, nan]

LGAMMA_64 = [
    -13.028168748931146, -10.544603534947868, -7.541883443475751, inf, -2.8754125604929137, -1.309006684993042,
    0.5555015450206474, inf, 1.2880225246980774, -0.12078223763524522, 0.47521466691493713, 1.791759469228055,
    3.561375910386697, 5.662562059857141, 8.025458396315985, 10.60460290274525, 13.368023671476047,
    16.29200047656724, 19.358231220224358, 22.55216385312342, 25.86194990184852, 29.27775451504081,
    32.791283022269916, 36.39544520803305, 40.08411059791735, 5.772156760265731e-09, -5.772156531688512e-09,
    -4.2278430309861296e-08, 4.2278436665324974e-08, 0.5723649429247001, -0.12078223763524522,
    0.2846828704729192, 19.98721449566189, 19.96195854446561, 690.7755278982137, 220258509288.81058,
    6.897755278982137e+302, inf, 1.2655121234846454, 46.051701859880914, 0.8600470153764809, -75.22646798193337,
    -363.4009232278215, -0.05624371649767407, inf, inf, inf, inf, inf, inf, inf, nan]

LGAMMA_32 = [
    -13.028168678283691, -10.54460334777832, -7.5418829917907715, inf, -2.8754124641418457, -1.309006690979004,
    0.5555015206336975, inf, 1.288022518157959, -0.12078223377466202, 0.4752146601676941, 1.7917594909667969,
    3.561375856399536, 5.662561893463135, 8.025458335876465, 10.604602813720703, 13.368022918701172,
    16.292001724243164, 19.358230590820312, 22.552165985107422, 25.86195182800293, 29.277755737304688,
    32.791282653808594, 36.39544677734375, 40.08411407470703, 0.0, 0.0, -5.039981587628972e-08, 0.0,
    0.5723649263381958, -0.12078223377466202, 0.28468286991119385, 19.987215042114258, 19.961957931518555, inf,
    220258500608.0, inf, inf, 1.2655121088027954, 46.051700592041016, 0.8600470423698425, -75.2264633178711,
    -363.4009094238281, -0.056243713945150375, inf, inf, inf, inf, inf, inf, inf, nan]

NDTRI_X = np.concatenate([np.linspace(0.02, 0.98, 17), [1e-300, 1e-30, 1e-10, 1e-3, 0.1, 0.135, 0.2, 0.5, 0.864, 0.9,
                                                       1 - 1e-10, 0.0, 1.0, -0.5, 1.5, nan]])
ERFINV_X = np.concatenate([np.linspace(-0.98, 0.98, 15), [-1 + 1e-12, 1 - 1e-12, 1e-20, -1e-8, 0.3, -0.999, 0.0, -0.0,
                                                         1.0, -1.0, 2.0, nan]])
# tf.math.ndtri (NDTRI_X) and tf.math.erfinv (ERFINV_X), recorded from real TF 2.21
NDTRI_64 = [
    -2.053748910631823, -1.4050715603096329, -1.0803193408149558, -0.8416212335729143, -0.643345405392917,
    -0.46769879911450823, -0.3054807880993974, -0.15096921549677725, 0.0, 0.1509692154967774, 0.3054807880993974,
    0.4676987991145081, 0.643345405392917, 0.8416212335729143, 1.0803193408149558, 1.4050715603096322,
    2.0537489106318225, -37.0470962993612, -11.464024688443613, -6.361340902404056, -3.090232306167813,
    -1.2815515655446004, -1.1030625561995975, -0.8416212335729142, 0.0, 1.0984684203398627, 1.2815515655446004,
    6.361340889697422, -inf, inf, nan, nan, nan]

NDTRI_32 = [
    -2.0537490844726562, -1.405071496963501, -1.0803192853927612, -0.8416212201118469, -0.6433454155921936,
    -0.4676988124847412, -0.30548080801963806, -0.1509692221879959, 0.0, 0.1509692221879959, 0.30548080801963806,
    0.4676988124847412, 0.6433454155921936, 0.8416212201118469, 1.0803192853927612, 1.405071496963501,
    2.0537493228912354, -inf, -11.46402359008789, -6.3613409996032715, -3.0902326107025146, -1.2815515995025635,
    -1.1030625104904175, -0.8416212201118469, 0.0, 1.0984684228897095, 1.2815513610839844, inf, -inf, inf, nan,
    nan, nan]

ERFINV_64 = [
    -1.644976357133187, -0.9935356283473041, -0.7328690779592171, -0.5460230581390552, -0.3913020878028322,
    -0.2534686434838658, -0.12471536794266071, -9.839095376804143e-17, 0.12471536794266051, 0.2534686434838656,
    0.39130208780283204, 0.5460230581390549, 0.7328690779592166, 0.9935356283473041, 1.644976357133187,
    -5.042031898572697, 5.042021094113473, 0.0, -8.862269299058351e-09, 0.27246271472675443, -2.3267537655135246,
    0.0, 0.0, inf, -inf, nan, nan]

ERFINV_32 = [
    -1.6449766159057617, -0.9935353994369507, -0.7328690886497498, -0.5460230708122253, -0.39130204916000366,
    -0.2534686028957367, -0.12471535801887512, 0.0, 0.12471535801887512, 0.2534686028957367, 0.39130204916000366,
    0.5460230112075806, 0.732869029045105, 0.9935353994369507, 1.6449766159057617, -inf, inf, 0.0, 0.0,
    0.2724626660346985, -2.326756238937378, 0.0, 0.0, inf, -inf, nan, nan]


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance in representable values (0 where both are nan; signed zeros apart by one)."""
    bits = {8: np.int64, 4: np.int32}[a.dtype.itemsize]
    low = np.iinfo(bits).min

    def ordered(v):
        i = v.view(bits).astype(np.int64)
        return np.where(i < 0, low - i, i)
    return np.where(np.isnan(a) & np.isnan(b), 0, np.abs(ordered(a) - ordered(b)))


@pytest.mark.parametrize("dtype, bounds", [(np.float64, (1, 2, 8)), (np.float32, (0, 2, 1))])
def test_erf_erfc_lgamma_within_ulps_of_tf(dtype, bounds):
    suffix = np.dtype(dtype).name[-2:]
    expected = [np.array(globals()[f"{name}_{suffix}"], dtype) for name in ("ERF", "ERFC", "LGAMMA")]
    with np.errstate(over="ignore"):  # float32 takes 1e300 and above as inf, as the recorded run did
        x32, lx32 = ERF_X.astype(dtype), LGAMMA_X.astype(dtype)
    with tf.Graph().as_default(), tf.Session() as sess:
        x, lx = tf.constant(x32), tf.constant(lx32)
        got = sess.run([tf.math.erf(x), tf.math.erfc(x), tf.math.lgamma(lx)])
    for name, g, e, bound in zip(("erf", "erfc", "lgamma"), got, expected, bounds):
        assert g.dtype == dtype
        special = ~np.isfinite(e) | (e == 0) | (np.abs(e) == 1) | (np.abs(e) == 2)
        np.testing.assert_array_equal(g[special], e[special], err_msg=name)
        np.testing.assert_array_equal(np.signbit(g[special]), np.signbit(e[special]), err_msg=name)
        assert _ulps(g, e).max() <= bound, (name, _ulps(g, e).max())


@pytest.mark.parametrize("dtype, bounds", [(np.float64, (4, 3)), (np.float32, (6, 6))])
def test_ndtri_erfinv_within_ulps_of_tf(dtype, bounds):
    """Cephes's ndtri computed in the input's type, as TF's kernels (float32: np.log for Eigen's, a few ulps)."""
    suffix = np.dtype(dtype).name[-2:]
    with np.errstate(under="ignore"):  # 1e-300 is 0 in float32, as in the recorded run
        p, x = NDTRI_X.astype(dtype), ERFINV_X.astype(dtype)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([tf.math.ndtri(p), tf.math.erfinv(x)])
    for name, g, bound in zip(("NDTRI", "ERFINV"), got, bounds):
        e = np.array(globals()[f"{name}_{suffix}"], dtype)
        special = ~np.isfinite(e) | (e == 0)
        np.testing.assert_array_equal(g[special], e[special], err_msg=name)
        np.testing.assert_array_equal(np.signbit(g[special]), np.signbit(e[special]), err_msg=name)
        assert _ulps(g, e).max() <= bound, (name, _ulps(g, e).max())


def test_erf_erfc_edges_as_tf():
    """TF's double erf is a rational function of x^2: nan where x^2 overflows; its float one clamps to +-1.
    erfc results below the normal range are flushed to zero, as TF's."""
    x = np.array([1.3e154, 1.4e154, -1e300, inf, -inf, nan, -0.0])
    denormals = np.array([1e-40, -1e-40, 1e-38, 3.5], np.float32)
    with np.errstate(over="ignore"):
        x32, x16 = x.astype(np.float32), x.astype(np.float16)
    with tf.Graph().as_default(), tf.Session() as sess:
        f64, f32, f16, c64, c32, d32 = sess.run([tf.math.erf(x), tf.math.erf(x32), tf.math.erf(x16), tf.math.erfc(x),
                                                 tf.math.erfc(np.float32([9.2, 10.0, 9.0])), tf.math.erf(denormals)])
    np.testing.assert_array_equal(f64, [1.0, nan, nan, nan, nan, nan, -0.0])
    np.testing.assert_array_equal(np.signbit(f64), [False] * 6 + [True])
    np.testing.assert_array_equal(f32, np.array([1, 1, -1, 1, -1, nan, -0.0], np.float32))
    np.testing.assert_array_equal(f16, np.array([1, 1, -1, 1, -1, nan, -0.0], np.float16))
    np.testing.assert_array_equal(c64, [0.0, 0.0, 2.0, 0.0, 2.0, nan, 1.0])
    np.testing.assert_array_equal(c32, np.array([0.0, 0.0, 4.1370317e-37], np.float32))
    np.testing.assert_array_equal(d32, np.array([0.0, -0.0, 0.0, 0.9999994], np.float32))
    np.testing.assert_array_equal(np.signbit(d32), [False, True, False, False])


def _top_k_by_full_sort(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Largest first, equal values in index order: a stable sort of the reversed rows, read backwards."""
    indices = x.shape[-1] - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
    return np.take_along_axis(x, indices, axis=-1), indices


def test_top_k_partition_matches_full_sort():
    """The partition paths (by the k-th largest; bounded by the k-th largest of groups' maxima) give the full
    sort's values and indices, ties at the k-th place included."""
    rng = np.random.default_rng(7)
    cases = []
    for dtype in (np.float32, np.float64, np.float16, np.int32, np.uint8):
        for width, k in ((64, 1), (97, 5), (400, 12), (33, 4)):
            x = rng.integers(-4, 4, (3, 2, width)).astype(dtype)  # many ties at the k-th place
            if np.dtype(dtype).kind == "f":
                x[rng.random(x.shape) < 0.1] = -inf
                x[rng.random(x.shape) < 0.1] = -0.0
                x[rng.random(x.shape) < 0.05] = inf
                x[0, 0] = rng.standard_normal(width)
            cases.append((x, k))
    with tf.Graph().as_default(), tf.Session() as sess:
        results = sess.run([tf.nn.top_k(x, k) for x, k in cases])
    for (x, k), (values, indices) in zip(cases, results):
        expected_values, expected_indices = _top_k_by_full_sort(x, k)
        np.testing.assert_array_equal(indices, expected_indices)
        np.testing.assert_array_equal(values, expected_values)
        np.testing.assert_array_equal(np.signbit(values), np.signbit(expected_values))


X_NAN = np.array([3., nan, 1., 3., -inf, nan, 2., 3.], np.float32)
# X_33: k == n = 33 sorts by libstdc++'s introsort (past its 16-element insertion sort) with NaN "equal" to all
X_33 = np.array([5, 9, 10, 5, 3, 0, 7, nan, 6, 0, nan, nan, 2, 8, 8, 5, 6, 6, 2, 7, 9, 6, 4, 5, 10, 10, 5, nan, 10,
                 9, 9, 2, 9], np.float32)


@pytest.mark.parametrize("build, expected", [
    # recorded from real TF 2.21: gtl::TopN's heap order (sorted=False) and its sort (NaN is not largest)
    (lambda: tf.nn.top_k(np.array([5, 1, 5, 2, 5, 0, 9, 9], np.int32), 4, sorted=False).indices, [2, 0, 6, 7]),
    (lambda: tf.nn.top_k(np.array([3, 2, 0, 3, 1, 4, 3, 1, 2, 5, 1, 4, 1, 5, 3, 1, 3, 2, 4, 5], np.float32), 5,
                         sorted=False).indices, [11, 19, 5, 9, 13]),
    (lambda: tf.nn.top_k(X_NAN, 5).indices, [0, 1, 3, 7, 6]),
    (lambda: tf.nn.top_k(X_NAN, 5, sorted=False).indices, [6, 7, 1, 0, 3]),
    (lambda: tf.nn.top_k(np.array([nan, 0, 1, 1, 1], np.float32), 1).indices, [2]),
    (lambda: tf.nn.top_k(np.full(3, nan, np.float32), 1).indices, [0]),
    (lambda: tf.argsort(X_NAN), [4, 2, 0, 1, 3, 5, 6, 7]),
    (lambda: tf.argsort(X_NAN, direction="DESCENDING"), [0, 1, 3, 2, 4, 5, 7, 6]),
    (lambda: tf.nn.top_k(X_33, 33).indices, [2, 28, 1, 29, 30, 32, 27, 24, 25, 20, 11, 13, 14, 6, 19, 8, 16, 17, 21, 0,
                                              3, 15, 23, 26, 22, 7, 10, 4, 12, 18, 31, 5, 9]),
])
def test_top_k_order_unsorted_and_with_nan_as_tf(build, expected):
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(build()), expected)


def test_sort_with_nan_as_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.sort(X_NAN)), [-inf, 1, 3, nan, 3, nan, 2, 3])


def test_top_k_unsorted_beyond_the_replay_limit_gives_the_sorted_order():
    """TF documents sorted=False's order as undefined; up to 2^16 elements TF's heap order is replayed row by
    row, beyond that (no kernel loops over a large batch's rows) the sorted order, the same k entries."""
    x = np.random.default_rng(3).random((8, 10000)).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        values, indices = sess.run(tf.nn.top_k(x, 5, sorted=False))
    expected = -np.sort(-x, axis=-1)[:, :5]
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(np.take_along_axis(x, indices, axis=-1), expected)
