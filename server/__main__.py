"""``python -m server``: the same command line as ``klondike-race``."""

import sys

from .app.root.cli import main

sys.exit(main())
