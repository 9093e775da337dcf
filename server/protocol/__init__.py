"""The wire protocol: typed commands in, encoded frames out, no I/O.

Envelope ``{"t": type, "d": data}`` both ways; see docs/protocol.md.
"""

from .commands import COMMANDS, Command, ProtocolError, decode
from .frames import frame, place_frame, reject, wrap_raw
from .reasons import DEFAULT_TEXT, CloseCode, Reason

SUBPROTOCOL = "klondike-race.v1"
#: frames larger than this are refused by closing with 1009
MAX_FRAME = 4096

__all__ = [
    "COMMANDS",
    "DEFAULT_TEXT",
    "MAX_FRAME",
    "SUBPROTOCOL",
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
