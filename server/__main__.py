"""``python -m server``: the same command line as ``klondike-race``."""

import sys

from .app.process.cli import main

sys.exit(main())
