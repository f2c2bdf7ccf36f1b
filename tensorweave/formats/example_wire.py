"""A vectorized reader of serialized tf.train.Example protos: the features a parse asks for, read straight
from the wire format of a whole batch at once, without building a protobuf object per record.

The batch is one byte buffer; each level of the message tree (Example, Features, map entry, Feature, value
list) is scanned for all records together, one field per record per step, with NumPy. It reads the layout
TF's writers and every protobuf library produce. Anything else it meets — an unknown or repeated field, a
duplicated key, a truncated or malformed record — makes `read_features` return None, and the caller parses
with protobuf, which gives the exact merge semantics and TF's error messages for bad records.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# wire types
_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5
# Feature's oneof: field number -> kind
BYTES_LIST, FLOAT_LIST, INT64_LIST = 1, 2, 3
_MAX_VARINT_BYTES = 10
# zeros after the batch, so the reads of a map entry's one-byte lengths (at most 2 + 255 + 4 bytes past its
# start) and of a varint never leave the buffer
_PADDING = 272


class _Irregular(Exception):
    """The batch needs protobuf's full parse."""


class _Fields:
    """The fields of a set of messages: for each, its message, number, wire type and payload [start, end) (a
    varint's value in `value`). Records come field by field within a message, in message order."""

    __slots__ = ("message", "number", "wire_type", "start", "end", "value")

    def __init__(self, message: np.ndarray, number: np.ndarray, wire_type: np.ndarray, start: np.ndarray,
                 end: np.ndarray, value: np.ndarray) -> None:
        self.message, self.number, self.wire_type = message, number, wire_type
        self.start, self.end, self.value = start, end, value


def _varint(buf: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The varints starting at `pos` (their 64 bits as int64) and the positions after them (buf is padded
    so reads never overrun)."""
    byte = buf[pos]
    more = np.flatnonzero(byte >= 0x80)
    if not more.size:  # one byte each: tags, short lengths
        return byte.astype(np.int64), pos + 1
    value = (byte & 0x7F).astype(np.uint64)
    length = np.ones(len(pos), np.int64)
    shift = 7
    while more.size:
        if shift >= 7 * _MAX_VARINT_BYTES:
            raise _Irregular
        byte = buf[pos[more] + length[more]]
        value[more] |= (byte & 0x7F).astype(np.uint64) << np.uint64(shift)
        length[more] += 1
        more = more[byte >= 0x80]
        shift += 7
    return value.view(np.int64), pos + length


def _scan(buf: np.ndarray, start: np.ndarray, end: np.ndarray, ordered: bool = False,
          only: int | None = None) -> _Fields:
    """Every field of the messages buf[start:end], all messages scanned together; `ordered`: in message order
    (else in the order scanned: the first field of each message, then the second, ...). `only`: the one
    field number (length-delimited) allowed."""
    records = []
    ids = np.flatnonzero(start < end)
    pos = start[ids]
    while ids.size:
        tag, pos = _varint(buf, pos)
        if only is not None:
            if np.any(tag != (only << 3 | _LENGTH)):
                raise _Irregular
            size, payload_start = _varint(buf, pos)
            payload_end = payload_start + size
            if np.any(size < 0) or np.any(payload_end > end[ids]):
                raise _Irregular
            records.append((ids, None, None, payload_start, payload_end, None))
            going = payload_end < end[ids]
            ids, pos = ids[going], payload_end[going]
            continue
        wire_type = (tag & 7).astype(np.int8)
        number = tag >> 3
        value = np.zeros(len(ids), np.int64)
        if np.all(wire_type == _LENGTH):  # the common case, without masks
            size, payload_start = _varint(buf, pos)
            if np.any(size < 0):
                raise _Irregular
            payload_end = payload_start + size
        else:
            payload_start, payload_end = pos.copy(), pos.copy()
            if np.any((wire_type != _LENGTH) & (wire_type != _VARINT) & (wire_type != _FIXED32)
                      & (wire_type != _FIXED64)):
                raise _Irregular
            at = wire_type == _LENGTH
            if at.any():
                size, after = _varint(buf, pos[at])
                if np.any(size < 0):
                    raise _Irregular
                payload_start[at], payload_end[at] = after, after + size
            at = wire_type == _VARINT
            if at.any():
                value[at], payload_end[at] = _varint(buf, pos[at])
            payload_end += np.where(wire_type == _FIXED32, 4, 0) + np.where(wire_type == _FIXED64, 8, 0)
        if np.any(payload_end > end[ids]) or np.any(number == 0):
            raise _Irregular
        records.append((ids, number, wire_type, payload_start, payload_end, value))
        going = payload_end < end[ids]
        ids, pos = ids[going], payload_end[going]
    if not records:
        empty = np.zeros(0, np.int64)
        return _Fields(empty, empty, empty.astype(np.int8), empty, empty, empty)
    if len(records) == 1:
        return _Fields(*records[0])
    parts = [np.concatenate(part) if part[0] is not None else None for part in zip(*records)]
    if ordered:
        order = np.argsort(parts[0], kind="stable")
        parts = [part[order] if part is not None else None for part in parts]
    return _Fields(*parts)


def _windows(buf: np.ndarray, width: int) -> np.ndarray:
    """buf's `width`-byte windows, one at each offset (a view: buf[start] of it gathers rows of bytes)."""
    return np.lib.stride_tricks.as_strided(buf, (len(buf) - width + 1, width), (1, 1), writeable=False)


def _gather_bytes(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """buf[start[0]:end[0]] + buf[start[1]:end[1]] + ..., as one array."""
    sizes = end - start
    if sizes.size and 0 < sizes[0] <= 64 and np.all(sizes == sizes[0]):  # runs of one size: rows of windows
        return _windows(buf, int(sizes[0]))[start].ravel()
    offsets = np.cumsum(sizes) - sizes
    return buf[np.repeat(start - offsets, sizes) + np.arange(int(sizes.sum()))]


class Column:
    """One requested feature over the batch: `kind` per record (-1 absent, 0 a Feature with no list, else
    BYTES_LIST, FLOAT_LIST or INT64_LIST), and the values of the records whose list is of the requested kind,
    flat, with how many each of those holds (in record order)."""

    __slots__ = ("kind", "values", "counts")

    def __init__(self, kind: np.ndarray, values: np.ndarray, counts: np.ndarray) -> None:
        self.kind, self.values, self.counts = kind, values, counts

    def __len__(self) -> int:
        return len(self.kind)


class _BatchReader:
    def __init__(self, serialized: Sequence[bytes]) -> None:
        sizes = np.fromiter(map(len, serialized), np.int64, len(serialized))
        self.data = b"".join(serialized)
        self.buf = np.frombuffer(self.data + bytes(_PADDING), np.uint8)
        self.starts = np.cumsum(sizes) - sizes
        self.ends = self.starts + sizes

    def entries(self) -> tuple[np.ndarray, ...]:
        """Every map entry of every record: its record, key [start, end), its Feature's kind and list
        [start, end)."""
        examples = _scan(self.buf, self.starts, self.ends, only=1)
        features = _scan(self.buf, examples.start, examples.end, only=1)
        record = examples.message[features.message]
        # the layout writers produce, read in a few steps: key, value tag, a Feature of one list (or none),
        # every length one byte
        start, end, buf = features.start, features.end, self.buf
        key_size = buf[start + 1].astype(np.int64)
        value_at = start + 2 + key_size
        feature_at = value_at + 2
        feature_size = buf[value_at + 1].astype(np.int64)
        list_tag = buf[feature_at]
        list_size = buf[feature_at + 1].astype(np.int64)
        empty = feature_size == 0
        plain = ((buf[start] == 0x0A) & (key_size < 0x80) & (buf[value_at] == 0x12) & (feature_size < 0x80)
                 & (feature_at + feature_size == end)
                 & (empty | (((list_tag == 0x0A) | (list_tag == 0x12) | (list_tag == 0x1A)) & (list_size < 0x80)
                             & (list_size + 2 == feature_size))))
        kind = np.where(empty, 0, list_tag >> 3).astype(np.int8)
        key_start, key_end = start + 2, start + 2 + key_size
        list_start, list_end = feature_at + 2, feature_at + 2 + np.where(empty, 0, list_size)
        other = np.flatnonzero(~plain)
        if other.size:
            parts = self._entries_of(start[other], end[other])
            for array, part in zip((key_start, key_end, kind, list_start, list_end), parts):
                array[other] = part
        return record, key_start, key_end, kind, list_start, list_end

    def _entries_of(self, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, ...]:
        """Key [start, end), kind and list [start, end) of the map entries buf[start:end], in any layout
        protobuf reads without merging."""
        entries = _scan(self.buf, start, end)
        is_key, is_value = entries.number == 1, entries.number == 2
        # one key and one value per entry: anything else (a missing value, a merged one) is protobuf's to read
        if np.any(entries.wire_type != _LENGTH) or not np.all(is_key | is_value) or \
                np.any(np.bincount(entries.message[is_key], minlength=len(start)) != 1) or \
                np.any(np.bincount(entries.message[is_value], minlength=len(start)) != 1):
            raise _Irregular
        key_start, key_end = np.empty_like(start), np.empty_like(start)
        value_start, value_end = np.empty_like(start), np.empty_like(start)
        key_start[entries.message[is_key]] = entries.start[is_key]
        key_end[entries.message[is_key]] = entries.end[is_key]
        value_start[entries.message[is_value]] = entries.start[is_value]
        value_end[entries.message[is_value]] = entries.end[is_value]
        feature = _scan(self.buf, value_start, value_end)
        if np.any(feature.wire_type != _LENGTH) or np.any((feature.number < 1) | (feature.number > 3)) or \
                np.any(np.bincount(feature.message, minlength=len(start)) > 1):
            raise _Irregular
        kind = np.zeros(len(start), np.int8)
        list_start, list_end = np.zeros(len(start), np.int64), np.zeros(len(start), np.int64)
        kind[feature.message] = feature.number
        list_start[feature.message], list_end[feature.message] = feature.start, feature.end
        return key_start, key_end, kind, list_start, list_end

    def list_values(self, kind: int, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The values of the lists buf[start:end] of `kind`, flat, and how many each list holds."""
        buf = self.buf
        size = buf[start + 1]
        empty = start == end
        if kind != BYTES_LIST and np.all(empty | ((buf[start] == 0x0A) & (size < 0x80)
                                                  & (start + 2 + size == end))):
            # one packed run each with a one-byte length: the layout writers produce for short lists
            zeros = np.zeros(len(start), np.int64)
            fields = _Fields(np.arange(len(start)), zeros + 1, zeros.astype(np.int8) + _LENGTH,
                             np.where(empty, end, start + 2), end, zeros)
        else:
            fields = _scan(buf, start, end, ordered=True)
        if np.any(fields.number != 1):
            raise _Irregular
        if kind == FLOAT_LIST:
            return self._floats(fields, len(start))
        if kind == INT64_LIST:
            return self._int64s(fields, len(start))
        if np.any(fields.wire_type != _LENGTH):
            raise _Irregular
        data = self.data
        values = np.empty(len(fields.start), object)
        values[:] = [data[s:e] for s, e in zip(fields.start.tolist(), fields.end.tolist())]
        return values, np.bincount(fields.message, minlength=len(start)).astype(np.int64)

    def _floats(self, fields: _Fields, lists: int) -> tuple[np.ndarray, np.ndarray]:
        """Packed (a run a field) and unpacked (a value a field) floats, in field order."""
        if np.any((fields.wire_type != _LENGTH) & (fields.wire_type != _FIXED32)):
            raise _Irregular
        sizes = fields.end - fields.start
        if np.any(sizes % 4):
            raise _Irregular
        values = _gather_bytes(self.buf, fields.start, fields.end).view("<f4").astype(np.float32)
        return values, np.bincount(fields.message, weights=sizes // 4, minlength=lists).astype(np.int64)

    def _int64s(self, fields: _Fields, lists: int) -> tuple[np.ndarray, np.ndarray]:
        """Packed (varints in a run) and unpacked (a varint a field) int64s, in field order."""
        packed = fields.wire_type == _LENGTH
        if np.any(~packed & (fields.wire_type != _VARINT)):
            raise _Irregular
        runs = np.flatnonzero(packed)
        raw = _gather_bytes(self.buf, fields.start[runs], fields.end[runs])
        run_ends = np.cumsum(fields.end[runs] - fields.start[runs]) - 1  # each run's last byte in `raw`
        last = raw < 0x80
        if np.any(~last[run_ends[run_ends >= 0]]):  # a run must end on a varint's last byte
            raise _Irregular
        ends = np.flatnonzero(last)
        starts = np.concatenate((np.zeros(min(1, ends.size), np.int64), ends[:-1] + 1))
        if np.any(ends - starts >= _MAX_VARINT_BYTES):
            raise _Irregular
        place = (np.arange(raw.size) - np.repeat(starts, ends - starts + 1)).astype(np.uint64)
        parts = (raw & 0x7F).astype(np.uint64) << (np.uint64(7) * place)
        run_values = (np.add.reduceat(parts, starts) if ends.size else np.zeros(0, np.uint64)).view(np.int64)
        run_of_value = np.searchsorted(run_ends, ends)
        per_field = np.ones(len(fields.start), np.int64)
        per_field[runs] = np.bincount(run_of_value, minlength=runs.size)
        field_of_value = np.concatenate((runs[run_of_value], np.flatnonzero(~packed)))
        values = np.concatenate((run_values, fields.value[~packed]))[np.argsort(field_of_value, kind="stable")]
        return values, np.bincount(fields.message, weights=per_field, minlength=lists).astype(np.int64)


def read_features(serialized: Sequence[bytes], keys: Sequence[str], kinds: Sequence[int]) -> list[Column] | None:
    """The Columns of `keys` (whose lists should be of `kinds`) over a batch of serialized Examples, or None
    when the batch needs protobuf's parse (its layout is unusual, or a record is malformed)."""
    try:
        reader = _BatchReader(serialized)
        record, key_start, key_end, kind, list_start, list_end = reader.entries()
        key_index = _match_keys(reader.buf, key_start, key_end, [k.encode() for k in keys])
        matched = np.flatnonzero(key_index >= 0)
        # matched entries by key, in record order within a key, so the lists of one kind are read in one scan
        matched = _by_key_then_record(matched, key_index[matched], record[matched], len(keys), len(serialized))
        key_of, kind_of = key_index[matched], kind[matched]
        column_kinds = np.full((len(keys), len(serialized)), -1, np.int8)
        column_kinds[key_of, record[matched]] = kind_of
        kinds_wanted = np.asarray(kinds, np.int8)
        wanted_of = kinds_wanted[key_of]
        of_kind = kind_of == wanted_of
        per_key: dict[int, tuple] = {}
        for list_kind in np.unique(kinds_wanted).tolist():
            take = of_kind if np.all(kinds_wanted == list_kind) else of_kind & (wanted_of == list_kind)
            at, key_at = matched[take], key_of[take]
            values, counts = reader.list_values(list_kind, list_start[at], list_end[at])
            # lists run key by key (key_at is sorted): each key's lists and values are one slice
            list_ends = np.searchsorted(key_at, np.arange(len(keys)), side="right")
            value_ends = np.concatenate(([0], np.cumsum(counts)))[list_ends]
            for k in np.flatnonzero(kinds_wanted == list_kind).tolist():
                list_from, value_from = (int(list_ends[k - 1]), int(value_ends[k - 1])) if k else (0, 0)
                per_key[k] = (values[value_from:value_ends[k]], counts[list_from:list_ends[k]])
        return [Column(column_kinds[k], *per_key[k]) for k in range(len(keys))]
    except _Irregular:
        return None


def _by_key_then_record(entries: np.ndarray, key: np.ndarray, record: np.ndarray, keys: int,
                        records: int) -> np.ndarray:
    """`entries` ordered by key, then record; a key twice in a record is protobuf's merge to decide."""
    slot = key * records + record
    if keys * records <= 4 * len(slot) + 1024:  # a table of slots: no sort
        table = np.full(keys * records, -1, np.int64)
        table[slot] = np.arange(len(slot))
        taken = table[table >= 0]
        if len(taken) != len(slot):
            raise _Irregular
        return entries[taken]
    order = np.argsort(slot)
    if np.any(slot[order][1:] == slot[order][:-1]):
        raise _Irregular
    return entries[order]


def _mixed(words: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    code = sizes.astype(np.uint64)
    for w in range(words.shape[1]):
        code = code * np.uint64(0x9E3779B97F4A7C15) + words[:, w]
    return code


def _match_keys(buf: np.ndarray, start: np.ndarray, end: np.ndarray, keys: list[bytes]) -> np.ndarray:
    """For each map entry, the index of its key in `keys`, or -1. Keys are compared as little-endian 64-bit
    words read from byte windows (bytes past a key's end masked off) and their lengths."""
    result = np.full(len(start), -1, np.int64)
    if not keys or not len(start):
        return result
    words = (max(map(len, keys)) + 7) // 8 or 1
    sizes = end - start
    candidates = np.flatnonzero(sizes <= 8 * words)
    if len(candidates) == len(start):
        candidates = np.arange(len(start))
    sizes = sizes[candidates]
    windows = _windows(buf, 8)
    masks = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], np.uint64)
    entry_words = np.empty((len(candidates), words), np.uint64)
    for w in range(words):
        remaining = np.clip(sizes - 8 * w, 0, 8)
        raw = windows[np.minimum(start[candidates] + 8 * w, len(windows) - 1)]
        entry_words[:, w] = np.ascontiguousarray(raw).view("<u8").ravel() & masks[remaining]
    padded = [key.ljust(8 * words, b"\0") for key in keys]
    key_words = np.frombuffer(b"".join(padded), "<u8").reshape(len(keys), words).astype(np.uint64)
    key_sizes = np.fromiter(map(len, keys), np.int64, len(keys))
    # one number per key (its words and length mixed), then the exact check of every word
    code, key_code = _mixed(entry_words, sizes), _mixed(key_words, key_sizes)
    if np.unique(key_code).size != len(keys):  # two keys alike: leave it to protobuf
        raise _Irregular
    order = np.argsort(key_code)
    place = np.minimum(np.searchsorted(key_code[order], code), len(keys) - 1)
    index = order[place]
    hit = key_sizes[index] == sizes
    for w in range(words):
        hit &= entry_words[:, w] == key_words[index, w]
    result[candidates[hit]] = index[hit]
    return result
