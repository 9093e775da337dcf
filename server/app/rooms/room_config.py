"""What the room services read of the options (built by the root from
:class:`~server.app.ground.config.Config`, whose fields these are)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomConfig:
    countdown: float  # s from the host's start to a race's first move
    lobby_ttl: int  # s an idle lobby is kept
    finished_ttl: int  # s a room is kept after its race ended
    challenge_ttl: int  # s a challenge is kept after its window closed
    tournament_ttl: int  # s a tournament's round is kept (as its tournament)
    public_per_address: int  # public rooms one address may have listed
    quick_wait: int  # s a quick race waits after its second player
    quick_per_minute: int  # quick-race requests one address may make a minute
