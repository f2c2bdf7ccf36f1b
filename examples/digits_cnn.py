"""The flagship demo: a convolutional network trained through the TF1 API on the 8x8 handwritten digits that
ship inside scikit-learn (nothing is downloaded).

    python -m examples.digits_cnn            # or: make demo

Two conv/relu/max-pool layers, a hidden dense layer and softmax cross-entropy, trained with Adam on a fixed
stratified 80/20 split; a progress bar shows the running loss and batch accuracy, and the end prints the
test accuracy and the wall time of the training.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import tensorweave.compat.v1 as tf


def load_split(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Images as [N, 8, 8, 1] floats in [0, 1] and integer labels, split 80/20 stratified by label."""
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[..., None]
    return train_test_split(images, digits.target, test_size=0.2, stratify=digits.target, random_state=seed)


def _weight(shape: list[int]) -> tf.Variable:
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def _bias(size: int) -> tf.Variable:
    return tf.Variable(tf.constant(0.1, shape=[size]))


def build_model(learning_rate: float = 0.003) -> dict[str, Any]:
    """The graph: placeholders, logits, loss, accuracy and the Adam training op."""
    images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    h = tf.nn.relu(tf.nn.conv2d(images, _weight([3, 3, 1, 32]), strides=[1, 1, 1, 1], padding="SAME") + _bias(32))
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")       # 4x4x32
    h = tf.nn.relu(tf.nn.conv2d(h, _weight([3, 3, 32, 64]), strides=[1, 1, 1, 1], padding="SAME") + _bias(64))
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")       # 2x2x64
    h = tf.reshape(h, [-1, 2 * 2 * 64])
    h = tf.nn.relu(tf.matmul(h, _weight([256, 128])) + _bias(128))
    logits = tf.matmul(h, _weight([128, 10])) + _bias(10)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.one_hot(labels, 10), logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step=global_step)
    return {"images": images, "labels": labels, "loss": loss, "accuracy": accuracy, "train_op": train_op}


def train(epochs: int = 16, batch_size: int = 32, limit: int | None = None, seed: int = 0,
          progress: bool = True) -> dict[str, Any]:
    """Train from scratch; returns the per-step losses, the test accuracy and the training wall time."""
    x_train, x_test, y_train, y_test = load_split(seed)
    if limit is not None:
        x_train, y_train = x_train[:limit], y_train[:limit]
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        model = build_model()
        rng = np.random.default_rng(seed)
        batches = -(-len(x_train) // batch_size)
        losses = []
        with tf.Session() as sess:
            start = time.perf_counter()
            sess.run(tf.global_variables_initializer())
            bar = tqdm(total=epochs * batches, desc="digits CNN", unit="step", disable=not progress)
            for _ in range(epochs):
                order = rng.permutation(len(x_train))
                for b in range(batches):
                    rows = order[b * batch_size:(b + 1) * batch_size]
                    _, loss, accuracy = sess.run([model["train_op"], model["loss"], model["accuracy"]],
                                                 {model["images"]: x_train[rows], model["labels"]: y_train[rows]})
                    losses.append(float(loss))
                    bar.set_postfix(loss=f"{loss:.3f}", acc=f"{accuracy:.2f}", refresh=False)
                    bar.update()
            bar.close()
            test_accuracy = sess.run(model["accuracy"], {model["images"]: x_test, model["labels"]: y_test})
            seconds = time.perf_counter() - start
    return {"losses": losses, "test_accuracy": float(test_accuracy), "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    result = train(epochs=args.epochs, batch_size=args.batch_size)
    print(f"test accuracy: {result['test_accuracy']:.2%}   training time: {result['seconds']:.1f} s")


if __name__ == "__main__":
    main()
