"""SyncReplicasOptimizer in one process: replicas built into one graph as between-graph replication builds
them (each its own local step; the accumulators and the token queue shared by name), backup workers whose
stale gradients are dropped, and the session-run hook with the chief's queue runner. The names and values
were recorded from real TF 2.21 running the same program."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _replicas(count, aggregate, total):
    global_step = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    emb = tf.Variable(np.arange(8.0, dtype=np.float32).reshape(4, 2), name="emb")
    replicas = []
    for r in range(count):
        with tf.name_scope(f"replica{r}"):
            x = tf.placeholder(tf.float32, [2], name="x")
            ids = tf.placeholder(tf.int32, [None], name="ids")
            loss = tf.reduce_sum(w * x) + tf.reduce_sum(tf.nn.embedding_lookup(emb, ids))
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                 replicas_to_aggregate=aggregate, total_num_replicas=total)
            replicas.append((x, ids, opt, opt.minimize(loss, global_step=global_step)))
    return global_step, w, emb, replicas


def test_graph_names_as_tf():
    _, _, _, replicas = _replicas(3, 2, 3)
    chief, train = replicas[0][2], replicas[2][3]
    graph = tf.get_default_graph()
    names = {op.name for op in graph.get_operations()}
    assert {"replica0/sync_replicas/conditional_accumulator", "replica0/sync_replicas/ResourceAccumulatorApplyGradient",
            "replica0/sync_replicas/ResourceAccumulatorTakeGradient", "replica0/sync_replicas/SetGlobalStep",
            "replica0/sync_replicas/SparseAccumulatorApplyGradient", "replica0/sync_replicas/SetGlobalStep_1",
            "replica0/sync_rep_local_step", "replica0/NoOp", "sync_token_q"} <= names
    assert (chief.chief_init_op.name, chief.local_step_init_op.name, chief._local_step.name) == (
        "replica0/sync_replicas/group_deps", "replica0/Assign:0", "replica0/sync_rep_local_step:0")
    assert chief.ready_for_local_init_op.name == "replica0/report_uninitialized_variables/boolean_mask/GatherV2:0"
    assert chief.get_init_tokens_op().name == "sync_token_q_EnqueueMany_1"
    runner = chief.get_chief_queue_runner()
    assert ([op.type for op in runner.enqueue_ops], runner.queue.name) == (["QueueEnqueueManyV2"], "sync_token_q")
    assert (train.name, train.op.type) == ("Assign_2:0", "Assign")
    assert chief.get_init_tokens_op(0).name == "no_init_tokens"
    with pytest.raises(ValueError, match=r"Too few tokens to finish the first step: -2 \(given\) vs -1 \(needed\)"):
        chief.get_init_tokens_op(-2)
    with pytest.raises(ValueError, match="Global step is required to check staleness"):
        chief.apply_gradients([(tf.constant([1.0, 1.0]), tf.Variable([0.0, 0.0]))])
    with pytest.raises(ValueError, match="Should be called after apply_gradients"):
        tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2).get_chief_queue_runner()


def test_backup_worker_gradients_of_an_old_step_are_dropped():
    global_step, w, emb, replicas = _replicas(3, 2, 3)
    chief = replicas[0][2]
    sync_op = chief.get_chief_queue_runner().enqueue_ops[0]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(chief.chief_init_op)
        for _, _, opt, _ in replicas[1:]:
            sess.run(opt.local_step_init_op)
        sess.run(chief.get_init_tokens_op())

        def step(r, x, ids):
            x_in, ids_in, _, train = replicas[r]
            return sess.run(train, {x_in: x, ids_in: ids})

        assert [step(0, [1.0, 1.0], [0, 1]), step(1, [3.0, 3.0], [1, 1])] == [0, 0]
        sess.run(sync_op)
        values = sess.run([w, emb, global_step])
        np.testing.assert_allclose(values[0], [0.8, 1.8])
        np.testing.assert_allclose(values[1], [[-0.1, 0.9], [1.8, 2.8], [4, 5], [6, 7]], rtol=1e-6)
        assert values[2] == 1
        # Every replica's next gradient was computed at local step 0: stale, dropped; each takes a token of 1.
        assert [step(2, [100.0, 100.0], [3]), step(0, [100.0, 0.0], [2]), step(1, [100.0, 0.0], [2])] == [1, 1, 1]
        np.testing.assert_allclose(sess.run(w), [0.8, 1.8])
        results = []
        workers = [threading.Thread(target=lambda r=r, x=x, ids=ids: results.append(step(r, x, ids)))
                   for r, x, ids in [(0, [2.0, 0.0], [2]), (2, [0.0, 4.0], [2, 3])]]
        for worker in workers:
            worker.start()
        sess.run(sync_op)  # waits for both gradients of step 1
        for worker in workers:
            worker.join(10)
        assert results == [2, 2]
        values = sess.run([w, emb, global_step])
        np.testing.assert_allclose(values[0], [0.7, 1.6], rtol=1e-6)
        np.testing.assert_allclose(values[1], [[-0.1, 0.9], [1.8, 2.8], [3.9, 4.9], [5.9, 6.9]], rtol=1e-6)
        assert values[2] == 2


def test_hooks_run_the_chief_queue_runner_with_backup_workers():
    """Three replicas as threads, two gradients aggregated per step: equal gradients, so whichever two come
    first the variable moves by the same amount each step; every replica stops at the first token of
    step 5."""
    steps = 5
    global_step, w, _, replicas = _replicas(3, 2, 3)
    hooks = [opt.make_session_run_hook(is_chief=r == 0) for r, (_, _, opt, _) in enumerate(replicas)]
    for hook in hooks:
        hook.begin()
    coord = tf.train.Coordinator()
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        for hook in hooks:
            hook.after_create_session(sess, coord)
        last = {}

        def replica(r):
            x, ids, _, train = replicas[r]
            token = 0
            while token < steps:
                token = sess.run(train, {x: [1.0, 1.0], ids: [0]})
            last[r] = token

        threads = [threading.Thread(target=replica, args=(r,)) for r in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert last == {0: steps, 1: steps, 2: steps}
        assert sess.run(global_step) == steps
        np.testing.assert_allclose(sess.run(w), [1.0 - 0.1 * steps, 2.0 - 0.1 * steps], rtol=1e-6)
        coord.request_stop()
    coord.join(stop_grace_period_secs=5, ignore_live_threads=True)


def test_hook_refuses_an_uninitialized_model():
    _, _, _, replicas = _replicas(1, 1, 1)
    hook = replicas[0][2].make_session_run_hook(is_chief=True)
    hook.begin()
    with tf.Session() as sess, pytest.raises(RuntimeError, match="Variables not initialized: global_step, w, emb"):
        hook.after_create_session(sess, tf.train.Coordinator())
