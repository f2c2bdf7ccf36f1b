"""The flagship demo (examples/digits_cnn.py), briefly: a few Adam steps of the CNN on a small subset of the
digits lower the loss. Needs the demo's extra dependencies (scikit-learn, tqdm)."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")

from examples import digits_cnn  # noqa: E402


def test_digits_cnn_loss_falls():
    result = digits_cnn.train(epochs=4, batch_size=32, limit=256, progress=False)
    losses = result["losses"]
    assert len(losses) == 32
    assert np.mean(losses[-4:]) < 0.7 * np.mean(losses[:4])
    assert 0.0 <= result["test_accuracy"] <= 1.0
