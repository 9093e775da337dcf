"""What a room's hub needs of a connection in the room (a small Protocol,
so that hubs never import the connection's modules)."""

from __future__ import annotations

from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection

from ..ground.backpressure import Backpressure


class Listener(Protocol):
    ws: ServerConnection
    conn_id: str
    role: str | None  # "player" or "spectator"
    seat: int
    following: int | None  # a spectator of a big room: the seat they follow
    syncing: bool  # catching up: frames wait in ``pending``
    pending: list[bytes]
    backpressure: Backpressure  # the socket's slow-consumer policy (every write goes through it)

    def on_room_event(self, event: dict[str, Any]) -> None: ...

    def resynced(self, reason: str) -> None: ...

    def taken_over(self) -> None: ...

    def own_game(self) -> tuple[int, int] | None:
        """(when it began, cards home) while the seat held here plays its own
        game of a challenge; ``None`` otherwise."""
        ...
