"""The HTTP API of players' public profiles.

    GET /api/players/{id}    a player's nickname, games, wins, finished games,
                             best time per mode and daily streak, their rating per
                             family (``ratings``) and their last rated races
                             (``rated``, newest first: family, day, rating after,
                             change, place, of), the player page's chart (JSON)

Nothing else about a player is public: their history (with its times and
rooms) goes only to a connection identified with their key (``p_history``).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import orjson
from websockets.datastructures import Headers
from websockets.http11 import Response

from ...protocol import Reason
from ...store import StoreUnavailable
from ..players.player_service import Players
from ..players.ratings import Ratings
from .http_routes import ApiHandler, response


def _json(status: HTTPStatus, body: Any) -> Response:
    return response(status, orjson.dumps(body), "application/json")


def players_api(players: Players, ratings: Ratings) -> ApiHandler:
    async def handle(target: str, headers: Headers) -> Response | None:
        parts = urlsplit(target).path.strip("/").split("/")
        if len(parts) != 3 or parts[:2] != ["api", "players"]:
            return None
        try:
            found = await players.public(parts[2].upper())
            if found is not None:
                found = {**found, **await ratings.public(parts[2].upper())}
        except StoreUnavailable:
            return _json(HTTPStatus.SERVICE_UNAVAILABLE,
                         {"error": "unavailable", "message": "storage unreachable"})
        if found is None:
            return _json(HTTPStatus.NOT_FOUND, {"error": Reason.UNKNOWN_PLAYER.value,
                                                "message": "there is no such player"})
        return _json(HTTPStatus.OK, found)

    return handle
