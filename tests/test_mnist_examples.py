"""The softmax-regression and MLP examples (examples/mnist_softmax.py, examples/mnist_mlp.py), briefly: a few
steps on the digits lower the loss and give a test accuracy. Need scikit-learn (the digits data)."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from examples import mnist_mlp, mnist_softmax  # noqa: E402


def test_mnist_softmax_loss_falls() -> None:
    result = mnist_softmax.train(steps=40, batch_size=50, verbose=False)
    losses = result["losses"]
    assert len(losses) == 40 and losses[0] == pytest.approx(np.log(10), rel=1e-5)
    assert np.mean(losses[-5:]) < 0.5 * losses[0]
    assert result["test_accuracy"] > 0.8


def test_mnist_mlp_loss_falls() -> None:
    result = mnist_mlp.train(epochs=1, batch_size=128, verbose=False)
    losses = result["losses"]
    assert len(losses) == 12
    assert np.mean(losses[-3:]) < 0.7 * np.mean(losses[:3])
    assert 0.0 <= result["test_accuracy"] <= 1.0
