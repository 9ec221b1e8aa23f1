"""``python -m hearts``: the same as the ``hearts`` command (see :mod:`hearts.cli`)."""

import sys

from hearts.cli import main

if __name__ == "__main__":
    sys.exit(main())
