"""The order of TF's CPU TopK kernel where it is not the stable descending one: `sorted=False`, and rows holding
NaN. TF keeps each row's k best in a `gtl::TopN` (a heap under libstdc++'s heap algorithms) when 1 < k < n, and
sorts the whole row with `std::sort` (then equal runs by index) when k == n; its comparator puts `a` before `b`
when `x[b] < x[a]`, else by index when not `x[b] > x[a]`, so a NaN is "equal" to every value. These functions
replay those algorithms step for step on one row (a Python list, whose float comparisons are C++'s), so the
indices are TF's exactly, NaNs and ties included.

Invariant: each function returns a permutation (or k-subset) of the row's column indices in TF's output order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Less = Callable[[Any, Any], bool]


def _adjust_heap(a: list, hole: int, length: int, value: Any, less: Less) -> None:
    """libstdc++'s std::__adjust_heap: sift the hole down to a leaf, then `value` up from there."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[child], a[child - 1]):
            child -= 1
        a[hole] = a[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[hole] = a[child - 1]
        hole = child - 1
    _push_hole(a, hole, top, value, less)


def _push_hole(a: list, hole: int, top: int, value: Any, less: Less) -> None:
    """libstdc++'s std::__push_heap."""
    parent = (hole - 1) // 2
    while hole > top and less(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _make_heap(a: list, length: int, less: Less) -> None:
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(a, parent, length, a[parent], less)


def _push_heap(a: list, length: int, less: Less) -> None:
    _push_hole(a, length - 1, 0, a[length - 1], less)


def _pop_heap(a: list, length: int, less: Less) -> None:
    if length > 1:
        value = a[length - 1]
        a[length - 1] = a[0]
        _adjust_heap(a, 0, length - 1, value, less)


def _first_before(row: list) -> Less:
    """TopK's stable comparator over column indices: "i comes before j"."""
    def less(i: int, j: int) -> bool:
        if row[j] < row[i]:
            return True
        if row[j] > row[i]:
            return False
        return i < j
    return less


def top_n(row: Any, k: int, sort: bool) -> list:
    """gtl::TopN over the columns of `row` (1 < k < n): its heap's order, or its sort_heap's when `sort`. A column
    enters only when its value is above the heap's worst one, so the columns are screened a block at a time."""
    values = row.tolist()
    less = _first_before(values)
    heap = list(range(k + 1))
    _make_heap(heap, k + 1, less)
    _pop_heap(heap, k + 1, less)
    start, n = k + 1, len(values)
    while start < n:
        stop = min(n, start + 4096)
        for c in np.flatnonzero(row[start:stop] > values[heap[0]]).tolist():
            c += start
            if values[heap[0]] < values[c]:
                _pop_heap(heap, k, less)
                heap[k - 1] = c
                _push_heap(heap, k, less)
        start = stop
    heap = heap[:k]
    if sort:
        for length in range(k, 1, -1):
            _pop_heap(heap, length, less)
    return heap


def sorted_row(row: Any) -> list:
    """TopK with k == n: std::sort of the columns by `x[b] < x[a]`, then each run of equal values by index."""
    values = row.tolist()
    order = list(range(len(values)))
    _introsort(order, lambda i, j: values[j] < values[i])
    run_begin, n = 0, len(order)
    while run_begin + 1 < n:
        run_end = run_begin + 1
        if values[order[run_begin]] == values[order[run_end]]:
            while run_end < n and values[order[run_begin]] == values[order[run_end]]:
                run_end += 1
            order[run_begin:run_end] = sorted(order[run_begin:run_end])
        run_begin = run_end
    return order


def _introsort(a: list, less: Less) -> None:
    """libstdc++'s std::sort: introsort down to runs of 16 (heapsort past 2*log2(n) levels), then insertion
    sort. An unguarded insertion stops at the front, where C++ would read before the array."""
    def swap(i: int, j: int) -> None:
        a[i], a[j] = a[j], a[i]

    def median_to_first(result: int, x: int, y: int, z: int) -> None:
        if less(a[x], a[y]):
            if less(a[y], a[z]):
                swap(result, y)
            elif less(a[x], a[z]):
                swap(result, z)
            else:
                swap(result, x)
        elif less(a[x], a[z]):
            swap(result, x)
        elif less(a[y], a[z]):
            swap(result, z)
        else:
            swap(result, y)

    def partition(first: int, last: int, pivot: int) -> int:
        while True:
            while less(a[first], a[pivot]):
                first += 1
            last -= 1
            while less(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            swap(first, last)
            first += 1

    def heapsort(first: int, last: int) -> None:
        part = a[first:last]
        _make_heap(part, len(part), less)
        for length in range(len(part), 1, -1):
            _pop_heap(part, length, less)
        a[first:last] = part

    def loop(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                heapsort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            loop(cut, last, depth)
            last = cut

    def linear_insert(i: int) -> None:
        value = a[i]
        while i > 0 and less(value, a[i - 1]):
            a[i] = a[i - 1]
            i -= 1
        a[i] = value

    def insertion_sort(first: int, last: int) -> None:
        for i in range(first + 1, last):
            if less(a[i], a[first]):
                a[first + 1:i + 1], a[first] = a[first:i], a[i]
            else:
                linear_insert(i)

    n = len(a)
    if n > 1:
        loop(0, n, 2 * (n.bit_length() - 1))
        insertion_sort(0, min(n, 16))
        for i in range(16, n):
            linear_insert(i)
