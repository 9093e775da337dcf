"""The HTTP API: tournament results as JSON or CSV, and round replays.

    GET /api/tournaments/{id}/results            standings and ended rounds (JSON)
    GET /api/tournaments/{id}/results.csv        one row per player and round, then totals
    GET /api/tournaments/{id}/rounds/{n}/replay/{player}
                                                 a player's ended round, move by move
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import orjson
import structlog
from websockets.http11 import Response

from ..protocol import Reason
from ..race import RaceError
from ..store import StoreUnavailable
from .http import ApiHandler, response
from .tournaments import Tournaments

log = structlog.get_logger("app.api")

_NOT_FOUND = {Reason.UNKNOWN_ROOM, Reason.UNKNOWN_SEAT, Reason.NOT_ENDED}


def _json(status: HTTPStatus, body: Any) -> Response:
    return response(status, orjson.dumps(body), "application/json")


def api(tournaments: Tournaments) -> ApiHandler:
    async def handle(path: str) -> Response | None:
        parts = path.strip("/").split("/")
        if len(parts) < 4 or parts[:2] != ["api", "tournaments"]:
            return None
        tid, rest = parts[2].upper(), parts[3:]
        try:
            if rest == ["results"]:
                return _json(HTTPStatus.OK, await tournaments.results(tid))
            if rest == ["results.csv"]:
                body = (await tournaments.results_csv(tid)).encode()
                return response(HTTPStatus.OK, body, "text/csv; charset=utf-8", {
                    "Content-Disposition": f'attachment; filename="tournament-{tid}.csv"'})
            if len(rest) == 4 and rest[0] == "rounds" and rest[2] == "replay":
                if not (rest[1].isdigit() and rest[3].isdigit()):
                    return None
                return _json(HTTPStatus.OK,
                             await tournaments.replay(tid, int(rest[1]), int(rest[3])))
        except RaceError as exc:
            status = HTTPStatus.NOT_FOUND if exc.reason in _NOT_FOUND else HTTPStatus.BAD_REQUEST
            return _json(status, {"error": exc.reason.value, "message": exc.text})
        except StoreUnavailable:
            return _json(HTTPStatus.SERVICE_UNAVAILABLE,
                         {"error": "unavailable", "message": "storage unreachable"})
        return None

    return handle
