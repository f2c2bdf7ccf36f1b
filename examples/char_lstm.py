"""A character-level LSTM language model trained through the TF1 API on a text that ships with Python (the
source of the standard library's `this` and `textwrap` modules; nothing is downloaded).

    python -m examples.char_lstm

One-hot characters feed an LSTM run by `tf.nn.dynamic_rnn` (a while loop over TensorArrays, differentiated
through by `tf.gradients`), a softmax layer predicts each next character, and Adam lowers the mean
cross-entropy on random windows of the text; every few steps the loss (nats per character) is printed, and
the end samples a little text from the model.
"""

from __future__ import annotations

import argparse
import inspect
import textwrap
import time
from typing import Any

import numpy as np

import tensorweave.compat.v1 as tf


def load_text() -> str:
    """The source code of `textwrap`: a few tens of kilobytes of English and Python, always installed."""
    return inspect.getsource(textwrap)


def build_model(vocab_size: int, num_units: int = 64, learning_rate: float = 0.01) -> dict[str, Any]:
    """The graph: character windows in, next-character logits, loss and the Adam training op."""
    chars = tf.placeholder(tf.int32, [None, None], name="chars")
    inputs, targets = chars[:, :-1], chars[:, 1:]
    cell = tf.nn.rnn_cell.LSTMCell(num_units)
    batch = tf.shape(chars)[0]
    initial_state = cell.zero_state(batch, tf.float32)
    outputs, final_state = tf.nn.dynamic_rnn(cell, tf.one_hot(inputs, vocab_size), initial_state=initial_state)
    with tf.variable_scope("softmax"):
        weights = tf.get_variable("weights", [num_units, vocab_size])
        bias = tf.get_variable("bias", [vocab_size], initializer=tf.zeros_initializer())
    logits = tf.reshape(tf.matmul(tf.reshape(outputs, [-1, num_units]), weights) + bias,
                        [batch, -1, vocab_size])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits))
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss)
    return dict(chars=chars, loss=loss, train_op=train_op, logits=logits, initial_state=initial_state,
                final_state=final_state)


def train(steps: int = 300, batch_size: int = 16, seq_len: int = 32, num_units: int = 64, seed: int = 0,
          report_every: int = 25, verbose: bool = True) -> dict[str, Any]:
    """Train on random windows of the text; return the losses (one per step) and a sample."""
    text = load_text()
    vocab = sorted(set(text))
    index = {c: i for i, c in enumerate(vocab)}
    data = np.array([index[c] for c in text], dtype=np.int32)
    rng = np.random.default_rng(seed)
    losses = []
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        model = build_model(len(vocab), num_units)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            start = time.time()
            for step in range(steps):
                offsets = rng.integers(0, len(data) - seq_len - 1, batch_size)
                windows = data[offsets[:, None] + np.arange(seq_len + 1)]
                loss, _ = sess.run([model["loss"], model["train_op"]], {model["chars"]: windows})
                losses.append(float(loss))
                if verbose and (step % report_every == 0 or step == steps - 1):
                    print(f"step {step:4d}  loss {loss:.3f}  ({time.time() - start:.1f} s)")
            sample = _sample(sess, model, vocab, index, rng, prime="def ", length=200 if verbose else 20)
    if verbose:
        print("sample:\n" + sample)
    return dict(losses=losses, sample=sample)


def _sample(sess: tf.Session, model: dict[str, Any], vocab: list[str], index: dict[str, int],
            rng: np.random.Generator, prime: str, length: int) -> str:
    """Generate text one character at a time, feeding the LSTM state back in."""
    state = None
    text = prime
    chars = [index[c] for c in prime]
    for _ in range(length):
        feed = {model["chars"]: np.array([chars + [0]], np.int32)}
        if state is not None:
            feed[model["initial_state"]] = state
        logits, state = sess.run([model["logits"], model["final_state"]], feed)
        probs = np.exp(logits[0, -1] - logits[0, -1].max())
        chars = [int(rng.choice(len(vocab), p=probs / probs.sum()))]
        text += vocab[chars[0]]
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--units", type=int, default=64)
    args = parser.parse_args()
    train(args.steps, args.batch_size, args.seq_len, args.units)


if __name__ == "__main__":
    main()
