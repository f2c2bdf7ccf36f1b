"""A vectorized reader of serialized tf.train.Example protos: the features a parse asks for, read straight
from the wire format of a whole batch at once, without building a protobuf object per record.

The batch is one byte buffer; each level of the message tree (Example, Features, map entry, Feature, value
list) is read for all records together with NumPy: the map entries one per record per step, each step's
entries read at once down to their lists (single-byte gathers; keys compared as whole words, found through a
perfect hash of the requested keys), in chunks small enough that the temporaries stay in cache and in the
allocator's reused memory. It reads the layout TF's writers and every protobuf library produce. Anything else it
meets — an unknown or repeated field, a duplicated key, a truncated or malformed record — makes `read_features`
return None, and the caller parses with protobuf, which gives the exact merge semantics and TF's error messages
for bad records.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

import numpy as np

# wire types
_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5
# Feature's oneof: field number -> kind
BYTES_LIST, FLOAT_LIST, INT64_LIST = 1, 2, 3
_MAX_VARINT_BYTES = 10
# zeros after the batch, so the reads of a map entry's one-byte lengths (at most 2 + 255 + 4 bytes past its
# start), of a varint and of a key's words never leave the buffer
_PADDING = 272
_WORD_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)
# map entries read per step: the temporaries of a step stay small enough for the allocator to reuse (larger
# arrays are mapped fresh from the system, page by page, each time: slower than the reads themselves)
_CHUNK = 8192


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


def _varint(buf: np.ndarray, pos: np.ndarray, length: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The varints starting at `pos` (their 64 bits as int64) and the positions after them (buf is padded
    so reads never overrun). `length`: they are lengths, and one of 2**63 or more is malformed."""
    byte = buf[pos]
    if not byte.size or byte.max() < 0x80:  # one byte each: tags, short lengths
        return byte.astype(np.int64), pos + 1
    more = np.flatnonzero(byte >= 0x80)
    value = (byte & 0x7F).astype(np.uint64)
    size = np.ones(len(pos), np.int64)
    shift = 7
    while more.size:
        if shift >= 7 * _MAX_VARINT_BYTES:
            raise _Irregular
        byte = buf[pos[more] + size[more]]
        value[more] |= (byte & 0x7F).astype(np.uint64) << np.uint64(shift)
        size[more] += 1
        more = more[byte >= 0x80]
        shift += 7
    if length and np.any(value >> np.uint64(63)):
        raise _Irregular
    return value.view(np.int64), pos + size


def _length(buf: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The length varints at `pos` and the payload starts after them."""
    return _varint(buf, pos, length=True)


def _field_runs(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> Iterator[tuple[np.ndarray, ...]]:
    """The fields of the messages buf[start:end] that may hold only field 1, length-delimited (a map's
    entries, a message's one submessage): for each step, the messages still going and their fields'
    payload [start, end) (the first field of each message, then the second, ...)."""
    ids = np.flatnonzero(start < end)
    pos, ends = start[ids], end[ids]
    while ids.size:
        if np.any(buf[pos] != (1 << 3 | _LENGTH)):
            raise _Irregular
        size, payload_start = _length(buf, pos + 1)
        payload_end = payload_start + size
        if np.any(payload_end > ends):
            raise _Irregular
        yield ids, payload_start, payload_end
        going = payload_end < ends
        if going.all():
            pos = payload_end
        else:
            ids, pos, ends = ids[going], payload_end[going], ends[going]


def _scan(buf: np.ndarray, start: np.ndarray, end: np.ndarray, ordered: bool = False) -> _Fields:
    """Every field of the messages buf[start:end], all messages scanned together; `ordered`: in message order
    (else in the order scanned: the first field of each message, then the second, ...)."""
    records = []
    ids = np.flatnonzero(start < end)
    pos, ends = start[ids], end[ids]
    while ids.size:
        tag, pos = _varint(buf, pos)
        wire_type = (tag & 7).astype(np.int8)
        number = tag >> 3
        value = np.zeros(len(ids), np.int64)
        if np.all(wire_type == _LENGTH):  # the common case, without masks
            size, payload_start = _length(buf, pos)
            payload_end = payload_start + size
        else:
            payload_start, payload_end = pos.copy(), pos.copy()
            if np.any((wire_type != _LENGTH) & (wire_type != _VARINT) & (wire_type != _FIXED32)
                      & (wire_type != _FIXED64)):
                raise _Irregular
            at = wire_type == _LENGTH
            if at.any():
                size, after = _length(buf, pos[at])
                payload_start[at], payload_end[at] = after, after + size
            at = wire_type == _VARINT
            if at.any():
                value[at], payload_end[at] = _varint(buf, pos[at])
            payload_end += np.where(wire_type == _FIXED32, 4, 0) + np.where(wire_type == _FIXED64, 8, 0)
        if np.any(payload_end > ends) or np.any(number == 0):
            raise _Irregular
        records.append((ids, number, wire_type, payload_start, payload_end, value))
        going = payload_end < ends
        ids, pos, ends = ids[going], payload_end[going], ends[going]
    if not records:
        empty = np.zeros(0, np.int64)
        return _Fields(empty, empty, empty.astype(np.int8), empty, empty, empty)
    if len(records) == 1:
        return _Fields(*records[0])
    parts = [np.concatenate(part) for part in zip(*records)]
    if ordered:
        order = np.argsort(parts[0], kind="stable")
        parts = [part[order] for part in parts]
    return _Fields(*parts)


def _windows(buf: np.ndarray, width: int) -> np.ndarray:
    """buf's `width`-byte windows, one at each offset (a view: buf[start] of it gathers rows of bytes)."""
    return np.lib.stride_tricks.as_strided(buf, (len(buf) - width + 1, width), (1, 1), writeable=False)


def _chunks(runs: Iterator[tuple[np.ndarray, ...]]) -> Iterator[tuple[np.ndarray, ...]]:
    """The runs of equal-length arrays regrouped into chunks of _CHUNK to 2 * _CHUNK rows (a shorter last)."""
    group, rows = [], 0
    for run in runs:
        parts = -(-len(run[0]) // (2 * _CHUNK))
        for piece in zip(*(np.array_split(array, parts) for array in run)) if parts > 1 else [run]:
            group.append(piece)
            rows += len(piece[0])
            if rows >= _CHUNK:
                yield group[0] if len(group) == 1 else tuple(map(np.concatenate, zip(*group)))
                group, rows = [], 0
    if group:
        yield group[0] if len(group) == 1 else tuple(map(np.concatenate, zip(*group)))


def _gather_bytes(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """buf[start[0]:end[0]] + buf[start[1]:end[1]] + ..., as one array."""
    sizes = end - start
    if sizes.size and 0 < sizes[0] <= 64 and np.all(sizes == sizes[0]):  # runs of one size: rows of windows
        return _windows(buf, int(sizes[0]))[start].ravel()
    offsets = np.cumsum(sizes) - sizes
    return buf[np.repeat(start - offsets, sizes) + np.arange(int(sizes.sum()))]


# a Feature's first tag -> its list kind (-1: not a list)
_LIST_KIND = np.full(256, -1, np.int8)
_LIST_KIND[[BYTES_LIST << 3 | _LENGTH, FLOAT_LIST << 3 | _LENGTH, INT64_LIST << 3 | _LENGTH]] = [1, 2, 3]
_DTYPES = {BYTES_LIST: object, FLOAT_LIST: np.float32, INT64_LIST: np.int64}


class Column:
    """One requested feature over the batch: `kind` per record (-1 absent, 0 a Feature with no list, else
    BYTES_LIST, FLOAT_LIST or INT64_LIST), and the values of the records whose list is of the requested kind,
    flat, with how many each of those holds (in record order)."""

    __slots__ = ("kind", "values", "counts")

    def __init__(self, kind: np.ndarray, values: np.ndarray, counts: np.ndarray) -> None:
        self.kind, self.values, self.counts = kind, values, counts

    def __len__(self) -> int:
        return len(self.kind)


class _Patterns:
    """Byte strings to find, each standing for a requested key, with a perfect hash of their little-endian
    64-bit words: a match costs a few array operations per word, whatever the number of keys. `sized`: the
    length of what is matched must be checked (else each pattern holds its own length)."""

    def __init__(self, patterns: Sequence[bytes | None], sized: bool) -> None:
        used = [i for i, pattern in enumerate(patterns) if pattern is not None]
        self.none, self.sized = len(patterns), sized
        self.words = (max((len(patterns[i]) for i in used), default=0) + 7) // 8 or 1
        # by key index, with a last row for `none` (a hit on it, or on an unused key's row, is no match)
        padded = b"".join((pattern or b"").ljust(8 * self.words, b"\0") for pattern in [*patterns, None])
        self.pattern_words = np.frombuffer(padded, "<u8").reshape(len(patterns) + 1, self.words).T.copy()
        self.sizes = np.array([len(pattern or b"") for pattern in patterns] + [-1], np.int64)
        # a sized pattern's code mixes its length in: "n" and "n\0" have the same words
        codes = _mixed([*self.pattern_words[:, used], *([self.sizes[used].astype(np.uint64)] if sized else [])])
        self.distinct = np.unique(codes).size == len(used)
        self.table, self.multiplier, self.shift = (
            _perfect_hash(codes, np.array(used, np.int64), self.none) if self.distinct else (None,) * 3)

    def match(self, buf: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
        """For each of buf[start:start + size], the index of the key it matches, else `none`."""
        if not self.distinct:  # two keys alike: leave it to protobuf
            raise _Irregular
        width = 8 * self.words
        rows = np.ndarray((len(buf) - width + 1,), f"V{width}", buffer=buf, strides=(1,))[start]
        words = rows.view("<u8").reshape(len(start), self.words)
        masked = [words[:, 0] & _WORD_MASKS[np.minimum(size, 8)]]
        for w in range(1, self.words):
            masked.append(words[:, w] & _WORD_MASKS[np.clip(size - 8 * w, 0, 8)])
        code = _mixed([*masked, size.astype(np.uint64)] if self.sized else masked)
        candidate = self.table[((code * self.multiplier) >> self.shift).view(np.int64)]
        hit = self.sizes[candidate] == size if self.sized else masked[0] == self.pattern_words[0][candidate]
        for w in range(0 if self.sized else 1, self.words):
            hit &= masked[w] == self.pattern_words[w][candidate]
        return np.where(hit, candidate, self.none)


def _mixed(columns: Sequence[np.ndarray]) -> np.ndarray:
    """One 64-bit code of each row of words, given as columns."""
    code = columns[0]
    for column in columns[1:]:
        code = code * _MIX + column
    return code


def _perfect_hash(codes: np.ndarray, index: np.ndarray, none: int) -> tuple[np.ndarray, np.uint64, np.uint64]:
    """A table, multiplier and shift that send each of the distinct `codes` to its own slot,
    (code * multiplier) >> shift, holding its `index` (`none` elsewhere)."""
    rng = np.random.default_rng(0)
    bits = max(1, len(codes).bit_length() + 1)
    while True:
        for _ in range(8):
            multiplier = rng.integers(1, 2**63, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
            slots = (codes * multiplier) >> np.uint64(64 - bits)
            if np.unique(slots).size == len(codes):
                table = np.full(1 << bits, none, np.int64)
                table[slots.view(np.int64)] = index
                return table, multiplier, np.uint64(64 - bits)
        bits += 1


class _Keys:
    """The requested keys: as their bytes, and as the start of a map entry that holds them in the usual layout
    (key tag, one-byte length, key, value tag)."""

    def __init__(self, keys: tuple[bytes, ...]) -> None:
        self.count = len(keys)
        self.names = _Patterns(keys, sized=True)
        self.prefixes = _Patterns([b"\x0a" + bytes([len(key)]) + key + b"\x12" if len(key) < 0x80 else None
                                   for key in keys], sized=False)
        self.padding = max(_PADDING, 8 * max(self.names.words, self.prefixes.words))


@functools.lru_cache(maxsize=64)
def _keys(keys: tuple[bytes, ...]) -> _Keys:
    """The match tables of a parse's keys, built once per op's key list."""
    return _Keys(keys)


class _BatchReader:
    def __init__(self, serialized: Sequence[bytes], padding: int) -> None:
        sizes = np.fromiter(map(len, serialized), np.int64, len(serialized))
        self.data = b"".join([*serialized, bytes(padding)])
        self.buf = np.frombuffer(self.data, np.uint8)
        self.ends = np.cumsum(sizes)
        self.starts = self.ends - sizes

    def entries(self, keys: _Keys) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The list kind of each requested key in each record ([keys, records]; -1: absent), and the lists
        [start, start + size) of the present ones, by key, then record. A key twice in a record is protobuf's
        merge to decide."""
        buf, records = self.buf, len(self.starts)
        examples = [np.concatenate(part) for part in zip(*_field_runs(buf, self.starts, self.ends))]
        message, example_start, example_end = examples or [np.zeros(0, np.int64)] * 3
        one_each = len(message) == records  # then `message` is every record in order
        # each chunk of entries read as soon as found, while its bytes are in cache; what is kept of it goes to a
        # table of slots (key, record) when that is small, else to lists sorted at the end
        table = keys.count * records <= len(self.data) // 16 + 1024
        if table:
            kinds = np.full((keys.count + 1, records), -1, np.int8)  # a last row for other keys
            starts = np.empty((keys.count + 1, records), np.int64)
            sizes = np.empty((keys.count + 1, records), np.int32)
        parts, found = [], 0
        for ids, start, end in _chunks(_field_runs(buf, example_start, example_end)):
            key_index, kind, list_start, list_size = self._entries(keys, start, end)
            ids = ids if one_each else message[ids]
            if table:
                slot = key_index * records + ids
                kinds.ravel()[slot], starts.ravel()[slot], sizes.ravel()[slot] = kind, list_start, list_size
                found += np.count_nonzero(key_index < keys.count)
                continue
            mine = np.flatnonzero(key_index < keys.count)
            parts.append((key_index[mine], ids[mine], kind[mine], list_start[mine], list_size[mine]))
        if table:
            kinds, cells = kinds[:keys.count], keys.count * records
            present = kinds.ravel() >= 0
            there = np.count_nonzero(present)
            if there != found:
                raise _Irregular
            if there == cells:  # every key in every record
                return kinds, starts.ravel()[:cells], sizes.ravel()[:cells]
            return kinds, starts.ravel()[:cells][present], sizes.ravel()[:cells][present]
        key_index, record, kind, list_start, list_size = (
            map(np.concatenate, zip(*parts)) if parts else [np.zeros(0, np.int64)] * 5)
        slot = key_index * records + record
        order = np.argsort(slot)
        if np.any(slot[order][1:] == slot[order][:-1]):
            raise _Irregular
        kinds = np.full((keys.count, records), -1, np.int8)
        kinds[key_index, record] = kind
        return kinds, list_start[order], list_size[order]

    def _entries(self, keys: _Keys, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, ...]:
        """Key index, kind and list [start, start + size) of the map entries buf[start:end]."""
        buf = self.buf
        # the layout writers produce, read in a few steps: the key field first, its length one byte, then the
        # value field, a Feature of one list (or none); a key is matched with its field's tag, length and the
        # value's tag
        prefix = buf[start + 1] + np.int64(3)
        key_index = keys.prefixes.match(buf, start, prefix)
        value_size, feature_at = _length(buf, start + prefix)
        list_kind = _LIST_KIND[buf[feature_at]]
        list_size, list_start = _length(buf, feature_at + 1)
        empty = value_size == 0
        plain = (feature_at + value_size == end) & (empty | ((list_kind > 0) & (list_start + list_size == end)))
        kind = np.where(empty, 0, list_kind)
        list_size[empty] = 0
        others = np.flatnonzero(key_index == keys.count)
        if others.size:  # another key, or a requested one in another layout
            at = start[others]
            plain[others] &= (buf[at] == 0x0A) & (prefix[others] < 0x80 + 3) & (buf[at + prefix[others] - 1] == 0x12)
        odd = np.flatnonzero(~plain)
        if odd.size:
            key_start, key_end, kind[odd], list_start[odd], list_end = self._entries_of(start[odd], end[odd])
            list_size[odd] = list_end - list_start[odd]
            key_index[odd] = keys.names.match(buf, key_start, key_end - key_start)
        return key_index, kind, list_start, list_size

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

    def list_values(self, kind: int, start: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The values of the lists buf[start:start + size] of `kind`, flat, and how many each list holds."""
        parts = [self._list_values(kind, start[at:at + _CHUNK], size[at:at + _CHUNK])
                 for at in range(0, len(start), _CHUNK)]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return np.zeros(0, _DTYPES[kind]), np.zeros(0, np.int64)
        return np.concatenate([values for values, _ in parts]), np.concatenate([counts for _, counts in parts])

    def _list_values(self, kind: int, start: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        buf = self.buf
        run = buf[start + 1]
        if kind != BYTES_LIST and np.all((size == 0) | ((buf[start] == 0x0A) & (run < 0x80) & (run + 2 == size))):
            # one packed run each with a one-byte length: the layout writers produce for short lists
            if kind == FLOAT_LIST:
                return self._packed_floats(start + 2, np.maximum(size - 2, 0))
            zeros = np.zeros(len(start), np.int64)
            fields = _Fields(np.arange(len(start)), zeros + 1, zeros.astype(np.int8) + _LENGTH,
                             start + 2, start + np.maximum(size, 2), zeros)
        else:
            fields = _scan(buf, start, start + size, ordered=True)
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

    def _packed_floats(self, start: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The floats of one packed run each, buf[start:start + size]."""
        if np.any(size & 3):
            raise _Irregular
        counts = (size >> 2).astype(np.int64)
        if not np.all(counts == 1):
            offsets = np.cumsum(counts) - counts
            start = np.repeat(start - 4 * offsets, counts) + 4 * np.arange(int(offsets[-1] + counts[-1]))
        floats = np.ndarray((len(self.buf) - 3,), "<f4", buffer=self.buf, strides=(1,))
        return floats[start].astype(np.float32), counts

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
        key_tables = _keys(tuple(key.encode() for key in keys))
        reader = _BatchReader(serialized, key_tables.padding)
        column_kinds, list_start, list_size = reader.entries(key_tables)
        kinds_wanted = np.asarray(kinds, np.int8)
        wanted = column_kinds == kinds_wanted[:, None]
        lists_per_key = np.count_nonzero(wanted, axis=1)
        of_kind = wanted[column_kinds >= 0]  # of each present entry (by key, then record)
        per_key: dict[int, tuple] = {}
        for list_kind in np.unique(kinds_wanted).tolist():
            keys_of_kind = np.flatnonzero(kinds_wanted == list_kind)
            take = of_kind
            if keys_of_kind.size < len(keys):
                take = of_kind & np.repeat(kinds_wanted == list_kind, np.count_nonzero(column_kinds >= 0, axis=1))
            at = (list_start, list_size) if take.all() else (list_start[take], list_size[take])
            values, counts = reader.list_values(list_kind, *at)
            # lists run key by key: each key's lists and values are one slice
            list_ends = np.cumsum(np.where(kinds_wanted == list_kind, lists_per_key, 0))
            value_ends = np.concatenate(([0], np.cumsum(counts)))[list_ends]
            for k in keys_of_kind.tolist():
                list_from, value_from = (int(list_ends[k - 1]), int(value_ends[k - 1])) if k else (0, 0)
                per_key[k] = (values[value_from:value_ends[k]], counts[list_from:list_ends[k]])
        return [Column(column_kinds[k], *per_key[k]) for k in range(len(keys))]
    except _Irregular:
        return None
