"""CRC-32C (Castagnoli) and TF's masked form, as framed around every TFRecord and checkpoint entry.

TF stores `mask(crc)` rather than the raw CRC so that a CRC computed over data that itself contains
CRCs stays well distributed. `google_crc32c` supplies the hardware CRC (it falls back to pure Python
on its own where the C extension is missing).
"""

from __future__ import annotations

import google_crc32c

_MASK_DELTA = 0xA282EAD8

value = google_crc32c.value
extend = google_crc32c.extend


def mask(crc: int) -> int:
    """TF's masking: rotate right by 15 bits and add a constant."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """Invert `mask`."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C TF writes after a record's length and after its data."""
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF
