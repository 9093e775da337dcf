"""The HTTP API: tournament results as JSON or CSV, replays, and a room's card.

    GET /api/tournaments/{id}/results            standings and ended rounds (JSON)
    GET /api/tournaments/{id}/results.csv        one row per player and round, then totals
    GET /api/tournaments/{id}/rounds/{n}/replay/{player}
                                                 a player's ended round, move by move
    GET /api/rooms/{id}/replay/{seat}            a player's game of a room's race, a page
                                                 of steps at a time (``?first=0&count=100``;
                                                 a challenge still open: with the header
                                                 ``Authorization: Bearer <seat token>``)
    GET /api/rooms/{id}/card                     what a room's link shows before joining: the
                                                 room as the lobby lists public ones (host,
                                                 mode, players; never anything of its deal)

A big tournament's results come a page at a time: ``?first=1&count=100``
(the defaults; ``count`` at most 1000), in rank order. A replay comes a page
of steps at a time: ``?first=0&count=100`` (step 0 is the deal; ``count`` at
most 100), with ``of``, the steps in all.

Every request that is not one of these gets a 4xx with a JSON body
``{"error", "message"}``; nothing a client sends makes a 500 (numbers are
ASCII digits, an id is an id before it goes anywhere, such as a header).
"""

from __future__ import annotations

import re
from http import HTTPStatus
from typing import Any, Final
from urllib.parse import parse_qs

import orjson
import structlog
from websockets.datastructures import Headers
from websockets.http11 import Response

from ...protocol import Reason
from ...race import RaceError
from ...store import StoreUnavailable
from ..rooms.ids import is_room_id
from ..rooms.replay_pages import PAGE_MAX, Busy
from ..rooms.replays import replay
from ..tournaments.tournament_service import Tournaments
from .http_routes import ApiHandler, error, response

log = structlog.get_logger("app.edge.results_api")

_NOT_FOUND: Final = {Reason.UNKNOWN_ROOM, Reason.UNKNOWN_SEAT, Reason.NOT_ENDED}
_WHOLE: Final = re.compile(r"[0-9]{1,9}")


def json_answer(status: HTTPStatus, body: Any, extra: dict[str, str] | None = None) -> Response:
    """A JSON answer of the HTTP API."""
    return response(status, orjson.dumps(body), "application/json", extra)


def whole(text: str) -> int | None:
    """A whole number written with 1 to 9 ASCII digits, else ``None``
    (``str.isdigit`` also takes ``²``, which ``int`` refuses).

    >>> whole("42"), whole("²"), whole("-1"), whole("1" * 10), whole("")
    (42, None, None, None, None)
    """
    return int(text) if _WHOLE.fullmatch(text) else None


def query_number(query: dict[str, list[str]], name: str) -> int | None:
    """A whole-number query parameter, if given."""
    values = query.get(name)
    if not values:
        return None
    number = whole(values[-1])
    if number is None:
        raise RaceError(Reason.BAD_FIELD, f"{name} must be a whole number (at most 9 digits)")
    return number


def _bearer(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any."""
    value = headers.get("Authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def api(tournaments: Tournaments) -> ApiHandler:
    """The tournaments' results and replays, and the rooms' replays (through
    the tournaments' rooms: one :class:`~..rooms.room_service.Rooms`, and so
    one replay cache, per process)."""
    rooms = tournaments.rooms

    async def handle(target: str, headers: Headers) -> Response | None:
        path, _, query_text = target.partition("#")[0].partition("?")
        parts = path.strip("/").split("/")
        if len(parts) < 4 or parts[:2] not in (["api", "tournaments"], ["api", "rooms"]):
            return None
        tid, rest = parts[2].upper(), parts[3:]
        if not (tid.isascii() and is_room_id(tid)):
            return error(HTTPStatus.NOT_FOUND, Reason.UNKNOWN_ROOM.value,
                         f"there is no such {parts[1][:-1]}")
        try:
            query = parse_qs(query_text, max_num_fields=20)
            first, count = query_number(query, "first"), query_number(query, "count")
            if parts[1] == "rooms" and rest == ["card"]:
                data = await rooms.load(tid)
                return json_answer(HTTPStatus.OK, data.room.listing(
                    rooms.now_ms(), data.counts.get("players")))
            if parts[1] == "rooms":
                seat = whole(rest[1]) if len(rest) == 2 and rest[0] == "replay" else None
                if seat is None:
                    return None
                body = await replay(rooms, tid, seat, first=first or 0,
                                    count=PAGE_MAX if count is None else count,
                                    token=_bearer(headers))
                return response(HTTPStatus.OK, body, "application/json")
            if rest == ["results"]:
                return json_answer(HTTPStatus.OK, await tournaments.results(tid, first, count))
            if rest == ["results.csv"]:
                body = (await tournaments.results_csv(tid, first, count)).encode()
                return response(HTTPStatus.OK, body, "text/csv; charset=utf-8", {
                    "Content-Disposition": f'attachment; filename="tournament-{tid}.csv"'})
            if len(rest) == 4 and rest[0] == "rounds" and rest[2] == "replay":
                n, player = whole(rest[1]), whole(rest[3])
                if n is None or player is None:
                    return None
                body = await tournaments.replay(tid, n, player, first or 0,
                                                PAGE_MAX if count is None else count)
                return response(HTTPStatus.OK, body, "application/json")
        except RaceError as exc:
            status = HTTPStatus.NOT_FOUND if exc.reason in _NOT_FOUND else HTTPStatus.BAD_REQUEST
            return error(status, exc.reason.value, exc.text)
        except ValueError:  # parse_qs: more fields than a request of ours has
            return error(HTTPStatus.BAD_REQUEST, Reason.BAD_FIELD.value, "too many query fields")
        except StoreUnavailable:
            return error(HTTPStatus.SERVICE_UNAVAILABLE, Reason.UNAVAILABLE.value,
                         "storage unreachable")
        except Busy:
            return error(HTTPStatus.SERVICE_UNAVAILABLE, "busy", "too many replays are being "
                         "built right now: try again in a moment", {"Retry-After": "1"})
        except Exception:  # a bug: said once in the log, never a traceback to the client
            log.exception("api_failed", path=path[:200])
            return error(HTTPStatus.INTERNAL_SERVER_ERROR, Reason.INTERNAL.value,
                         "something went wrong on the server")
        return None

    return handle
