"""The HTTP API: tournament results as JSON or CSV, and replays.

    GET /api/tournaments/{id}/results            standings and ended rounds (JSON)
    GET /api/tournaments/{id}/results.csv        one row per player and round, then totals
    GET /api/tournaments/{id}/rounds/{n}/replay/{player}
                                                 a player's ended round, move by move
    GET /api/rooms/{id}/replay/{seat}            a player's game of a room's race, a page
                                                 of steps at a time (``?first=0&count=100``;
                                                 a challenge still open: with the header
                                                 ``Authorization: Bearer <seat token>``)

A big tournament's results come a page at a time: ``?first=1&count=100``
(the defaults; ``count`` at most 1000), in rank order.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

import orjson
import structlog
from websockets.datastructures import Headers
from websockets.http11 import Response

from ...protocol import Reason
from ...race import RaceError
from ...store import StoreUnavailable
from ..rooms.ids import is_room_id
from ..rooms.replays import PAGE, replay
from ..rooms.room_service import Rooms
from ..tournaments.tournament_service import Tournaments
from .http_routes import ApiHandler, response

log = structlog.get_logger("app.edge.results_api")

_SEAT: Final = re.compile(r"[0-9]{1,5}")
_NOT_FOUND = {Reason.UNKNOWN_ROOM, Reason.UNKNOWN_SEAT, Reason.NOT_ENDED}


def json_answer(status: HTTPStatus, body: Any, extra: dict[str, str] | None = None) -> Response:
    """A JSON answer of the HTTP API."""
    return response(status, orjson.dumps(body), "application/json", extra)


def query_number(query: dict[str, list[str]], name: str) -> int | None:
    """A whole-number query parameter, if given."""
    values = query.get(name)
    if not values:
        return None
    if not values[-1].isdigit() or len(values[-1]) > 9:
        raise RaceError(Reason.BAD_FIELD, f"{name} must be a whole number")
    return int(values[-1])


def _bearer(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any."""
    value = headers.get("Authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def api(tournaments: Tournaments, rooms: Rooms) -> ApiHandler:
    async def handle(target: str, headers: Headers) -> Response | None:
        split = urlsplit(target)
        parts = split.path.strip("/").split("/")
        if len(parts) < 4 or parts[:2] not in (["api", "tournaments"], ["api", "rooms"]):
            return None
        tid, rest = parts[2].upper(), parts[3:]
        try:
            query = parse_qs(split.query)
            first, count = query_number(query, "first"), query_number(query, "count")
            if parts[1] == "rooms":
                if len(rest) != 2 or rest[0] != "replay" or not _SEAT.fullmatch(rest[1]):
                    return None
                if not is_room_id(tid):
                    raise RaceError(Reason.UNKNOWN_ROOM)
                return json_answer(HTTPStatus.OK, await replay(
                    rooms, tid, int(rest[1]), first=first or 0,
                    count=PAGE if count is None else count, token=_bearer(headers)))
            if rest == ["results"]:
                return json_answer(HTTPStatus.OK, await tournaments.results(tid, first, count))
            if rest == ["results.csv"]:
                body = (await tournaments.results_csv(tid, first, count)).encode()
                return response(HTTPStatus.OK, body, "text/csv; charset=utf-8", {
                    "Content-Disposition": f'attachment; filename="tournament-{tid}.csv"'})
            if len(rest) == 4 and rest[0] == "rounds" and rest[2] == "replay":
                if not (rest[1].isdigit() and rest[3].isdigit()):
                    return None
                return json_answer(HTTPStatus.OK,
                             await tournaments.replay(tid, int(rest[1]), int(rest[3])))
        except RaceError as exc:
            status = HTTPStatus.NOT_FOUND if exc.reason in _NOT_FOUND else HTTPStatus.BAD_REQUEST
            return json_answer(status, {"error": exc.reason.value, "message": exc.text})
        except StoreUnavailable:
            return json_answer(HTTPStatus.SERVICE_UNAVAILABLE,
                         {"error": "unavailable", "message": "storage unreachable"})
        return None

    return handle
