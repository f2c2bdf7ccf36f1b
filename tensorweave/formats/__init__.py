"""TensorFlow's file and wire formats (layer L0): nothing here knows about graphs or sessions.

`protos` (TF's messages from our own .proto files, in a private pool), `datatypes` (DataType <-> NumPy),
`tensor_proto` (make_tensor_proto / make_ndarray), `crc32c`, `tfrecord` (record files), `events`
(FileWriter and event files), `table` + `bundle` (V2 checkpoints), `checkpoint_state` (the `checkpoint`
file) and `checkpoint_reader` (tf.train.load_checkpoint and friends). Corrupt input raises TF's
DataLossError naming the file; a missing name raises NotFoundError.
"""
