"""The character-level LSTM example (examples/char_lstm.py), briefly: a few Adam steps through dynamic_rnn's
while loop lower the loss."""

import numpy as np

from examples import char_lstm


def test_char_lstm_loss_falls():
    result = char_lstm.train(steps=20, batch_size=8, seq_len=12, num_units=32, verbose=False)
    losses = result["losses"]
    assert len(losses) == 20
    assert np.mean(losses[-4:]) < 0.85 * np.mean(losses[:4])
    assert result["sample"].startswith("def ") and len(result["sample"]) == 24
