"""``python -m broker``: run a Moldau broker (see broker.cli)."""

import sys

from broker.cli import main

sys.exit(main())
