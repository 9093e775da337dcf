"""Websocket frames built once and written as they are.

``websockets.broadcast`` frames a message again for every connection and
writes it with a system call of its own. A big room's tick goes to
thousands of sockets: its ``top`` frame is framed once (:func:`text_frame`)
and written, with the player's own ``me`` frame beside it, in one
``writelines`` (one ``writev``) per socket (:func:`write_frames`). A server
frame is the header and the payload (never masked, never fragmented here),
so writing it to the transport is what the library itself does; nothing is
written to a connection that is not open.
"""

from __future__ import annotations

from collections.abc import Sequence

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State


def text_frame(payload: bytes) -> bytes:
    """A whole text frame (FIN, opcode 1, unmasked) around ``payload`` (UTF-8 JSON).

    >>> text_frame(b'{"t":"pong"}')
    b'\\x81\\x0c{"t":"pong"}'
    >>> len(text_frame(b"x" * 200)), text_frame(b"x" * 200)[:4]
    (204, b'\\x81~\\x00\\xc8')
    """
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = b"\x81\x7e" + n.to_bytes(2, "big")
    else:
        head = b"\x81\x7f" + n.to_bytes(8, "big")
    return head + payload


def write_frames(ws: ServerConnection, frames: Sequence[bytes]) -> bool:
    """Write whole frames (from :func:`text_frame`) to an open connection in
    one go; ``False`` if it is not open (nothing written)."""
    if ws.protocol.state is not State.OPEN or ws.transport is None:
        return False
    ws.transport.writelines(frames)
    return True
