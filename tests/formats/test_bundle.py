"""V2 checkpoint bundles: TF's files read with their values, ours byte-identical to TF's, corruption caught."""

import shutil
import tarfile

import numpy as np
import pytest

from tensorweave import errors
from tensorweave.formats import datatypes as dt
from tensorweave.formats.bundle import (
    BundleReader,
    BundleWriter,
    encode_tensor_name_slice,
    merge_bundles,
    parse_shape_and_slice,
    write_bundle,
)
from tensorweave.formats.checkpoint_reader import (
    NewCheckpointReader,
    list_variables,
    load_checkpoint,
    load_variable,
)
from tensorweave.formats.checkpoint_state import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_state,
    latest_checkpoint,
    update_checkpoint_state,
)

from .make_fixtures.cases import BFLOAT16_VALUES, FIXTURES, MANY_KEYS, REFERENCE, bundle_tensors, sharded_save

TF_BUNDLE = FIXTURES / "tf_bundle"
REFERENCE_CKPT = REFERENCE / "checkpoint_v2"
REFERENCE_VALUES = {
    "dense/kernel": np.array([[0, 1, 2], [3, 4, 5]], np.float32),
    "dense/bias": np.array([7, 8], np.int32),
    "scalar64": np.float64(3.5),
    "global_step": np.int64(0),
}


def _same_files(ours, theirs):
    for suffix in (".index", ".data-00000-of-00001"):
        assert (ours.parent / (ours.name + suffix)).read_bytes() == (theirs.parent / (theirs.name + suffix)).read_bytes()


def test_reference_checkpoint_values():
    assert latest_checkpoint(REFERENCE_CKPT) == str(REFERENCE_CKPT / "model.ckpt-43")
    reader = load_checkpoint(REFERENCE_CKPT)
    for name, value in REFERENCE_VALUES.items():
        got = reader.get_tensor(name)
        assert got.dtype == value.dtype and got.shape == np.shape(value)
        np.testing.assert_array_equal(got, value)
    assert reader.get_variable_to_shape_map() == {"dense/kernel": [2, 3], "dense/bias": [2], "scalar64": [],
                                                  "global_step": []}
    assert reader.get_variable_to_dtype_map() == {"dense/kernel": dt.DT_FLOAT, "dense/bias": dt.DT_INT32,
                                                  "scalar64": dt.DT_DOUBLE, "global_step": dt.DT_INT64}
    assert reader.has_tensor("scalar64") and not reader.has_tensor("nope")
    assert list_variables(REFERENCE_CKPT)[0] == ("dense/bias", [2])
    np.testing.assert_array_equal(load_variable(REFERENCE_CKPT / "model.ckpt-42", "dense/bias:0"), [7, 8])


def test_writes_reference_checkpoint_byte_identically(tmp_path):
    write_bundle(tmp_path / "model.ckpt-43", REFERENCE_VALUES)
    _same_files(tmp_path / "model.ckpt-43", REFERENCE_CKPT / "model.ckpt-43")
    assert not [p for p in tmp_path.iterdir() if "tempstate" in p.name]


def _expected_dtype_bundle():
    tensors = bundle_tensors()
    tensors["dtypes/bfloat16"] = np.array(BFLOAT16_VALUES, np.float32)
    return tensors


def test_reads_every_dtype_tf_wrote():
    reader = load_checkpoint(TF_BUNDLE / "dtypes")
    for name, value in _expected_dtype_bundle().items():
        got = reader.get_tensor(name)
        if name == "dtypes/bfloat16":
            assert reader.get_variable_to_dtype_map()[name] == dt.DT_BFLOAT16
            got = got.astype(np.float32)
        else:
            assert np.asarray(got, dtype=object if isinstance(got, bytes) else None).dtype == np.asarray(value).dtype
        np.testing.assert_array_equal(got, value)


def test_writes_every_dtype_byte_identically(tmp_path):
    tensors = _expected_dtype_bundle()
    with BundleWriter(tmp_path / "dtypes") as writer:
        for name in sorted(tensors):
            writer.add(name, tensors[name], dtype=dt.DT_BFLOAT16 if name == "dtypes/bfloat16" else None)
    _same_files(tmp_path / "dtypes", TF_BUNDLE / "dtypes")
    round_trip = load_checkpoint(tmp_path / "dtypes")
    for name, value in bundle_tensors().items():
        np.testing.assert_array_equal(round_trip.get_tensor(name), value)


def test_multi_block_index(tmp_path):
    with tarfile.open(TF_BUNDLE / "many.tar.gz") as tar:
        tar.extractall(tmp_path / "tf", filter="data")
    reader = load_checkpoint(tmp_path / "tf" / "many")
    assert len(reader.get_variable_to_shape_map()) == len(MANY_KEYS)
    for i in (0, 450, 899):
        assert reader.get_tensor(MANY_KEYS[i]) == np.int8(i % 100)
    write_bundle(tmp_path / "many", {k: np.int8(i % 100) for i, k in enumerate(MANY_KEYS)})
    _same_files(tmp_path / "many", tmp_path / "tf" / "many")


def test_sliced_variable_read_and_written_as_tf(tmp_path):
    reader = load_checkpoint(TF_BUNDLE / "sliced")
    np.testing.assert_array_equal(reader.get_tensor("part"), np.arange(24, dtype=np.float32).reshape(4, 6))
    assert reader.get_variable_to_shape_map() == {"part": [4, 6], "plain": []}
    full = np.arange(24, dtype=np.float32).reshape(4, 6)
    with BundleWriter(tmp_path / "sliced") as writer:
        writer.add_slice("part", [4, 6], "0,1:-", full[:1])
        writer.add_slice("part", [4, 6], "1,3:-", full[1:])
        writer.add("plain", np.int64(7))
    _same_files(tmp_path / "sliced", TF_BUNDLE / "sliced")


def test_sharded_save_merged_as_tf(tmp_path):
    merged = load_checkpoint(TF_BUNDLE / "merged")
    np.testing.assert_array_equal(merged.get_tensor("part"), np.arange(8, dtype=np.int32).reshape(4, 2))
    np.testing.assert_array_equal(merged.get_tensor("b"), np.array([b"x", b"yz"], dtype=object))
    for shard, (name, spec, value, part) in enumerate(sharded_save()):
        with BundleWriter(tmp_path / "tmp" / f"part-{shard}") as writer:
            writer.add(name, value)
            shape, slice_proto = parse_shape_and_slice(spec)
            writer.add_slice("part", shape, slice_proto, part)
    merge_bundles([tmp_path / "tmp" / "part-0", tmp_path / "tmp" / "part-1"], tmp_path / "merged")
    for suffix in (".index", ".data-00000-of-00002", ".data-00001-of-00002"):
        assert (tmp_path / f"merged{suffix}").read_bytes() == (TF_BUNDLE / f"merged{suffix}").read_bytes()
    assert not (tmp_path / "tmp").exists()


def test_bad_shape_and_slice_specs():
    for spec in ("0,1:-", "4 x 0,1:-", "4 2 0,1", "4 2 a,b:-"):
        with pytest.raises(errors.InvalidArgumentError):
            parse_shape_and_slice(spec)


@pytest.mark.parametrize("value,encoded", [(0, b"\x80"), (-1, b"\x7f"), (63, b"\xbf"), (64, b"\xc0\x40"),
                                           (-65, b"\x3f\xbf"), (2**40, None), (-(2**62), None)])
def test_ordered_code_slice_keys_sort_like_numbers(value, encoded):
    key = encode_tensor_name_slice("v", [value], [-1])
    assert key.startswith(b"\x00v\x00\x01\x01\x01")
    if encoded is not None:
        assert key[6:-1] == encoded
    lower = encode_tensor_name_slice("v", [value - 1], [-1])
    assert lower < key


def test_missing_key_and_missing_checkpoint(tmp_path):
    reader = load_checkpoint(REFERENCE_CKPT / "model.ckpt-43")
    with pytest.raises(errors.NotFoundError, match="Key no/such not found in checkpoint"):
        reader.get_tensor("no/such")
    with pytest.raises(errors.NotFoundError, match="absent"):
        load_checkpoint(tmp_path / "absent")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint'"):
        load_checkpoint(tmp_path)


def _copy_reference(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(REFERENCE_CKPT / f"model.ckpt-43{suffix}", tmp_path / f"m{suffix}")
        (tmp_path / f"m{suffix}").chmod(0o644)
    return tmp_path / "m"


def test_corrupted_index_is_data_loss(tmp_path):
    prefix = _copy_reference(tmp_path)
    index = bytearray((tmp_path / "m.index").read_bytes())
    index[20] ^= 0x40
    (tmp_path / "m.index").write_bytes(bytes(index))
    with pytest.raises(errors.OpError, match="m.index") as info:  # TF's reader translates it to a plain OpError
        load_checkpoint(prefix)
    assert type(info.value) is errors.OpError and info.value.error_code == errors.UNKNOWN


def test_corrupted_or_truncated_data_is_data_loss(tmp_path):
    prefix = _copy_reference(tmp_path)
    data_path = tmp_path / "m.data-00000-of-00001"
    data = bytearray(data_path.read_bytes())
    data[10] ^= 1  # inside dense/kernel
    data_path.write_bytes(bytes(data))
    reader = load_checkpoint(prefix)
    np.testing.assert_array_equal(reader.get_tensor("dense/bias"), [7, 8])
    with pytest.raises(errors.DataLossError, match=r"m\.data-00000-of-00001.*dense/kernel"):
        reader.get_tensor("dense/kernel")
    reader.close()
    data_path.write_bytes(bytes(data[:30]))
    with pytest.raises(errors.DataLossError, match="global_step"):
        load_checkpoint(prefix).get_tensor("global_step")


def test_big_entries_read_in_overlapped_chunks(tmp_path, monkeypatch):
    """An entry of several chunks is read on the I/O thread while its CRC runs here: same values, same checks."""
    from tensorweave.formats import bundle

    monkeypatch.setattr(bundle, "_IO_CHUNK", 1000)
    tensors = {"big": np.arange(2501, dtype=np.float64), "small": np.arange(3, dtype=np.int32)}
    write_bundle(tmp_path / "b", tensors)
    with BundleReader(tmp_path / "b") as reader:
        for name, value in tensors.items():
            np.testing.assert_array_equal(reader.lookup(name), value)
    data_path = tmp_path / "b.data-00000-of-00001"
    data = bytearray(data_path.read_bytes())
    data[15_000] ^= 1  # in the last but one chunk of "big"
    data_path.write_bytes(bytes(data))
    with BundleReader(tmp_path / "b") as reader, pytest.raises(errors.DataLossError, match="checksum.*big"):
        reader.lookup("big")


def test_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(TypeError), BundleWriter(tmp_path / "x") as writer:
        writer.add("a", np.zeros(3))
        writer.add("b", {"not": "a tensor"})
    assert list(tmp_path.iterdir()) == []


def test_duplicate_key_rejected(tmp_path):
    writer = BundleWriter(tmp_path / "x")
    writer.add("a", np.zeros(3))
    with pytest.raises(errors.InvalidArgumentError):
        writer.add("a", np.zeros(3))
    writer.abort()


def test_reader_reads_all_keys_of_written_bundle(tmp_path):
    tensors = {"z": np.arange(5.0), "a/b": np.array([b"x"], dtype=object), "é": np.zeros((2, 0), np.int16)}
    write_bundle(tmp_path / "b", tensors)
    with BundleReader(tmp_path / "b") as reader:
        assert reader.keys() == sorted(k.encode() for k in tensors)
        for name, value in tensors.items():
            np.testing.assert_array_equal(reader.lookup(name), value)


def test_checkpoint_state_file(tmp_path):
    assert get_checkpoint_state(tmp_path) is None and latest_checkpoint(tmp_path) is None
    write_bundle(tmp_path / "model.ckpt-1", {"v": np.zeros(1)})
    update_checkpoint_state(tmp_path, "model.ckpt-1", ["model.ckpt-0"])
    text = (tmp_path / "checkpoint").read_text()
    assert text == ('model_checkpoint_path: "model.ckpt-1"\nall_model_checkpoint_paths: "model.ckpt-0"\n'
                    'all_model_checkpoint_paths: "model.ckpt-1"\n')
    state = get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == str(tmp_path / "model.ckpt-1")
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "model.ckpt-0"), str(tmp_path / "model.ckpt-1")]
    assert latest_checkpoint(tmp_path) == str(tmp_path / "model.ckpt-1")
    assert checkpoint_exists(tmp_path / "model.ckpt-1") and not checkpoint_exists(tmp_path / "model.ckpt-0")
    update_checkpoint_state(tmp_path, str(tmp_path / "model.ckpt-9"), latest_filename="other")
    assert latest_checkpoint(tmp_path, "other") is None
    with pytest.raises(RuntimeError, match=r"conflicts with path used for checkpoint state\.  Please"):
        update_checkpoint_state(tmp_path, str(tmp_path / "checkpoint"))
    update_checkpoint_state(tmp_path, "checkpoint")  # TF compares the strings only: a relative name passes
    (tmp_path / "checkpoint").write_text("garbage {{{")
    assert get_checkpoint_state(tmp_path) is None


# TF 2.21's CheckpointReader.debug_string() of the fixtures: raw slice keys, DT_ names, no full sliced entry
TF_DEBUG_STRINGS = {
    "sliced": b"\x00part\x00\x01\x01\x02\x80\x81\x80\x7f (DT_FLOAT) [1,6]\n"
              b"\x00part\x00\x01\x01\x02\x81\x83\x80\x7f (DT_FLOAT) [3,6]\nplain (DT_INT64) []\n",
    "merged": b"\x00part\x00\x01\x01\x02\x80\x81\x80\x7f (DT_INT32) [1,2]\n"
              b"\x00part\x00\x01\x01\x02\x81\x83\x80\x7f (DT_INT32) [3,2]\na (DT_FLOAT) [2]\nb (DT_STRING) [2]\n",
}


@pytest.mark.parametrize("name", sorted(TF_DEBUG_STRINGS))
def test_debug_string_as_tf(name):
    assert NewCheckpointReader(str(TF_BUNDLE / name)).debug_string() == TF_DEBUG_STRINGS[name]


def test_scalars_come_back_as_numpy_scalars_as_in_tf():
    reader = NewCheckpointReader(str(TF_BUNDLE / "dtypes"))
    value = reader.get_tensor("shapes/scalar")
    assert type(value) is np.float64 and value == 3.5
    assert reader.get_tensor("shapes/string_scalar") == b"only"
    assert type(load_variable(TF_BUNDLE / "dtypes", "shapes/scalar:0")) is np.float64


def test_directory_as_prefix_is_data_loss_as_in_tf(tmp_path):
    with pytest.raises(errors.DataLossError, match=f"^Unable to open table file {tmp_path}: FAILED_PRECONDITION"):
        NewCheckpointReader(str(tmp_path))


def test_state_paths_relative_to_a_relative_save_dir(tmp_path, monkeypatch):
    """TF stores cwd-relative paths relative to a relative save_dir (recorded from TF 2.21)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    update_checkpoint_state("sub", "sub/m-1")
    assert (tmp_path / "sub" / "checkpoint").read_text() == 'model_checkpoint_path: "m-1"\nall_model_checkpoint_paths: "m-1"\n'
    assert get_checkpoint_state("sub").model_checkpoint_path == "sub/m-1"
    update_checkpoint_state("sub", "m-2", ["m-1"])
    assert (tmp_path / "sub" / "checkpoint").read_text() == (
        'model_checkpoint_path: "../m-2"\nall_model_checkpoint_paths: "../m-1"\nall_model_checkpoint_paths: "../m-2"\n')
    assert list(get_checkpoint_state("sub").all_model_checkpoint_paths) == ["sub/../m-1", "sub/../m-2"]


def test_update_checkpoint_state_needs_the_directory_and_matching_timestamps(tmp_path):
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        update_checkpoint_state(tmp_path / "new", "x")
    assert not (tmp_path / "new").exists()
    with pytest.raises(ValueError, match=r"^Checkpoint timestamps, if provided, must match checkpoint paths "
                                         r"\(got paths \['m-2'\] and timestamps \[1.0, 2.0\]\)$"):
        generate_checkpoint_state_proto("/a", "m-2", all_model_checkpoint_timestamps=[1.0, 2.0])


def test_state_file_with_repeated_scalar_field_reads_as_tf(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "a"\nmodel_checkpoint_path: "b"\n')
    assert get_checkpoint_state(tmp_path).model_checkpoint_path == str(tmp_path / "b")  # TF merges: last wins
