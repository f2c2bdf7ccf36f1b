"""Packs Joe & Kuo's Sobol direction numbers into tensorweave/ops/sobol_direction_numbers.npz.

The source is the table SciPy ships (`scipy/stats/_sobol_direction_numbers.npz`, BSD licensed, built from
new-joe-kuo-6.21201 of https://web.maths.unsw.edu.au/~fkuo/sobol/): per dimension its primitive polynomial
(`poly`: degree s, coefficients a, as `1 << s | a << 1 | 1`) and its s initial direction numbers m_1..m_s
(`vinit`). TF's SobolSample reads the same numbers for its 21200 dimensions. m_i is odd and below 2**i, so
only its i - 1 high bits are stored: column i of the table packed bit by bit, first the rows of degree >= i.
Run with a Python that has SciPy: `python tools/pack_sobol_directions.py [path/to/_sobol_direction_numbers.npz]`.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

MAX_DIM = 21200  # the dimensions TF's SobolSample has
TARGET = pathlib.Path(__file__).resolve().parent.parent / "tensorweave" / "ops" / "sobol_direction_numbers.npz"


def main(source: str) -> None:
    table = np.load(source)
    poly, initial = table["poly"][:MAX_DIM], table["vinit"][:MAX_DIM]
    degree = np.floor(np.log2(poly)).astype(np.int64)
    columns = [initial[degree > i, i] >> 1 for i in range(1, initial.shape[1])]
    bits = [((column[:, None] >> np.arange(i, 0, -1) - 1) & 1).reshape(-1) for i, column in enumerate(columns, 1)]
    np.savez_compressed(TARGET, poly=poly.astype(np.uint32), bits=np.packbits(np.concatenate(bits).astype(np.uint8)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else
         str(pathlib.Path(np.__file__).parent.parent / "scipy" / "stats" / "_sobol_direction_numbers.npz"))
