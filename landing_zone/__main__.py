"""``python -m landing_zone``: see :mod:`landing_zone.cli`."""

import sys

from landing_zone.cli import main

if __name__ == "__main__":
    sys.exit(main())
