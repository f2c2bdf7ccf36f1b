"""The iteration order of TF's C++ `std::unordered_map<string, ...>` (libstdc++), where TF lets it show.

TF's CheckpointReader builds its name maps that way (in the bundle's sorted key order) and hands them to
Python in that order; NodeDef validation names missing attrs in that order. Programs print these, so we
replay libstdc++'s hash (`std::hash<std::string>`, a MurmurHash64A variant) and bucket policy exactly.
"""

from __future__ import annotations

import bisect

_MASK64 = (1 << 64) - 1
_MURMUR_MUL = 0xC6A4A7935BD1E995
# libstdc++'s bucket counts: its small-size table, then the primes its rehash policy picks from.
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIME_BUCKETS = (
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113,
    127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467,
    503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029,
    2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123,
    8783, 9497, 10273, 11113, 12011, 12983)


def _std_string_hash(data: bytes) -> int:
    """libstdc++'s std::hash<std::string> on 64-bit hosts (_Hash_bytes, MurmurHash64A-like, seed 0xc70f6907)."""
    def shift_mix(v: int) -> int:
        return v ^ (v >> 47)

    n = len(data)
    aligned = n & ~7
    h = (0xC70F6907 ^ (n * _MURMUR_MUL)) & _MASK64
    for i in range(0, aligned, 8):
        h ^= (shift_mix((int.from_bytes(data[i:i + 8], "little") * _MURMUR_MUL) & _MASK64) * _MURMUR_MUL) & _MASK64
        h = (h * _MURMUR_MUL) & _MASK64
    if n & 7:
        h ^= int.from_bytes(data[aligned:], "little")
        h = (h * _MURMUR_MUL) & _MASK64
    return shift_mix((shift_mix(h) * _MURMUR_MUL) & _MASK64)


def unordered_map_order(keys: list[str]) -> list[str]:
    """The iteration order of a libstdc++ std::unordered_map<string, ...> filled with `keys` in turn.

    Replays the same buckets: a new bucket's nodes go to the front of the list, a node joining a bucket goes
    to the front of that bucket's run, and a rehash relinks the nodes in list order by the same rules.
    """
    if not keys or len(keys) > _PRIME_BUCKETS[-1]:
        return list(keys)
    codes = {k: _std_string_hash(k.encode("utf-8")) for k in keys}
    runs: dict[int, list[str]] = {}  # bucket -> its nodes, newest last (reversed at the end)
    run_order: list[int] = []  # buckets, newest last
    bucket_count, next_resize, size = 1, 0, 0

    def place(key: str) -> None:
        bucket = codes[key] % bucket_count
        if bucket not in runs:
            runs[bucket] = []
            run_order.append(bucket)
        runs[bucket].append(key)

    for key in keys:
        if size + 1 > next_resize:
            wanted = max(size + 1, 0 if next_resize else 11)
            if wanted >= bucket_count:
                n = max(wanted + 1, bucket_count * 2)
                bucket_count = _FAST_BUCKETS[n] if n < len(_FAST_BUCKETS) else \
                    _PRIME_BUCKETS[bisect.bisect_left(_PRIME_BUCKETS, n, 6)]
                next_resize = bucket_count
                old = [k for b in reversed(run_order) for k in reversed(runs[b])]
                runs.clear()
                run_order.clear()
                for k in old:
                    place(k)
            else:
                next_resize = bucket_count
        place(key)
        size += 1
    return [k for b in reversed(run_order) for k in reversed(runs[b])]
