"""SavedModel, TF1's API: `tf.saved_model.builder`, `loader`, `signature_def_utils`, `utils`, `main_op` and
the constants of the format (directory layout, tags, signature keys and method names).

A SavedModel is a directory laid out as TF lays it out (`saved_model.pb` holding the SavedModel proto with
its tagged MetaGraphDefs, `variables/variables.{index,data-*}` written by a sharded V2 Saver, `assets/`), so
real TensorFlow loads what is written here and the other way round.
"""
