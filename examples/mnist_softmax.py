"""Softmax regression, TF1's classic first program ("MNIST for ML beginners"), on the 8x8 handwritten digits
that ship inside scikit-learn (64 pixels instead of 784; nothing is downloaded).

    python -m examples.mnist_softmax

y = softmax(x W + b) with W and b starting at zeros, cross-entropy loss, plain gradient descent on
mini-batches; prints the test accuracy.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import tensorweave.compat.v1 as tf
from examples.digits_cnn import load_split


def train(steps: int = 1000, batch_size: int = 100, learning_rate: float = 0.5, seed: int = 0,
          verbose: bool = True) -> dict[str, Any]:
    """Train from scratch; returns the per-step losses and the test accuracy."""
    x_train, x_test, y_train, y_test = (a.reshape(len(a), -1) if a.ndim > 1 else a for a in load_split(seed))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 64])
        y_ = tf.placeholder(tf.int64, [None])
        W = tf.Variable(tf.zeros([64, 10]))  # noqa: N806 - the tutorial's names
        b = tf.Variable(tf.zeros([10]))
        y = tf.matmul(x, W) + b
        cross_entropy = tf.losses.sparse_softmax_cross_entropy(labels=y_, logits=y)
        train_step = tf.train.GradientDescentOptimizer(learning_rate).minimize(cross_entropy)
        correct_prediction = tf.equal(tf.argmax(y, 1), y_)
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        rng = np.random.default_rng(seed)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(steps):
                rows = rng.choice(len(x_train), batch_size, replace=False)
                _, loss = sess.run([train_step, cross_entropy], {x: x_train[rows], y_: y_train[rows]})
                losses.append(float(loss))
                if verbose and (step + 1) % (steps // 5 or 1) == 0:
                    print(f"step {step + 1}: loss {loss:.4f}")
            test_accuracy = sess.run(accuracy, {x: x_test, y_: y_test})
    return {"losses": losses, "test_accuracy": float(test_accuracy)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    result = train(steps=args.steps)
    print(f"test accuracy: {result['test_accuracy']:.2%}")


if __name__ == "__main__":
    main()
