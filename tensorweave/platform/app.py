"""tf.app.run: absl's app.run with TF's flag parser, which leaves flags it does not know in argv."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

from absl import app as absl_app

from tensorweave.platform import flags
from tensorweave.platform.tf_export import tf_export


def _parse_flags_tolerate_undef(argv: list[str] | None) -> list[str]:
    """Parses the known flags; unknown ones stay in the argv main receives (absl would exit instead)."""
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


@tf_export("app.run")
def run(main: Callable[[list[str]], Any] | None = None, argv: list[str] | None = None) -> NoReturn:
    """Parses flags, calls main(argv) (by default `__main__.main`) and exits with what it returns."""
    main = main or sys.modules["__main__"].main
    absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
