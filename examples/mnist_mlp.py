"""A multilayer perceptron through TF1's tf.layers on the 8x8 handwritten digits that ship inside
scikit-learn (nothing is downloaded).

    python -m examples.mnist_mlp

Two hidden layers (dense, batch normalization, ReLU, dropout while training), softmax cross-entropy with a
little L2 weight decay, Adam with an exponentially decaying learning rate; the batch-norm moving averages
are updated through GraphKeys.UPDATE_OPS as TF1 programs do, and the test accuracy is measured with the
moving statistics (training=False).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import tensorweave.compat.v1 as tf
from examples.digits_cnn import load_split


def build_model(hidden: tuple[int, ...] = (256, 128), dropout: float = 0.2) -> dict[str, Any]:
    """The graph: placeholders, logits, loss, accuracy and the training op (after the update ops)."""
    images = tf.placeholder(tf.float32, [None, 64], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    training = tf.placeholder_with_default(False, [], name="training")
    h = images
    for units in hidden:
        h = tf.layers.dense(h, units, use_bias=False)
        h = tf.layers.batch_normalization(h, training=training)
        h = tf.layers.dropout(tf.nn.relu(h), rate=dropout, training=training)
    logits = tf.layers.dense(h, 10)
    weight_decay = 1e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "kernel" in v.name])
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits) + weight_decay
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.train.exponential_decay(0.01, global_step, 100, 0.7)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step=global_step)
    return {"images": images, "labels": labels, "training": training, "loss": loss, "accuracy": accuracy,
            "train_op": train_op}


def train(epochs: int = 10, batch_size: int = 64, seed: int = 0, verbose: bool = True) -> dict[str, Any]:
    """Train from scratch; returns the per-step losses and the test accuracy."""
    x_train, x_test, y_train, y_test = (a.reshape(len(a), -1) if a.ndim > 1 else a for a in load_split(seed))
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        model = build_model()
        rng = np.random.default_rng(seed)
        batches = -(-len(x_train) // batch_size)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for epoch in range(epochs):
                order = rng.permutation(len(x_train))
                for b in range(batches):
                    rows = order[b * batch_size:(b + 1) * batch_size]
                    _, loss = sess.run([model["train_op"], model["loss"]],
                                       {model["images"]: x_train[rows], model["labels"]: y_train[rows],
                                        model["training"]: True})
                    losses.append(float(loss))
                if verbose and (epoch + 1) % (epochs // 5 or 1) == 0:
                    print(f"epoch {epoch + 1}: loss {np.mean(losses[-batches:]):.4f}")
            test_accuracy = sess.run(model["accuracy"], {model["images"]: x_test, model["labels"]: y_test})
    return {"losses": losses, "test_accuracy": float(test_accuracy)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    result = train(epochs=args.epochs)
    print(f"test accuracy: {result['test_accuracy']:.2%}")


if __name__ == "__main__":
    main()
