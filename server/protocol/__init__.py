"""The wire protocol: typed commands in, encoded frames out, no I/O.

Envelope ``{"t": type, "d": data}`` both ways; see docs/protocol.md.
"""

from .commands import COMMANDS, Command, ProtocolError, decode
from .frames import frame, place_frame, reject, wrap_raw
from .reasons import DEFAULT_TEXT, CloseCode, Reason

#: the subprotocols a server speaks, the one it prefers first: ``v2`` acknowledges a
#: move with what changed in the player's view, ``v1`` with the whole view
#: (docs/protocol.md, "Versions of the protocol")
SUBPROTOCOLS = ("klondike-race.v2", "klondike-race.v1")
SUBPROTOCOL = SUBPROTOCOLS[0]
#: frames larger than this are refused by closing with 1009
MAX_FRAME = 4096
#: the game commands (moves, undos, a resign) a seat may store in one race:
#: a long human game takes a few hundred, so this is several of them; the
#: last place is kept for a resign. It bounds a seat's log, and so its replay.
MAX_COMMANDS = 2000

__all__ = [
    "COMMANDS",
    "DEFAULT_TEXT",
    "MAX_COMMANDS",
    "MAX_FRAME",
    "SUBPROTOCOL",
    "SUBPROTOCOLS",
    "CloseCode",
    "Command",
    "ProtocolError",
    "Reason",
    "decode",
    "frame",
    "place_frame",
    "reject",
    "wrap_raw",
]
