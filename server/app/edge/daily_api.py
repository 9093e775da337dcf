"""The public HTTP API of the daily deal, for a club's website or chat bot.

    GET /api/daily                          today's modes: each one's room, how
                                            many played and finished, the time left
    GET /api/daily/{YYYY-MM-DD}/{mode}      a page of that day's leaderboard of that
        ?first=1&count=20&find=ann          mode (``first`` from 1, ``count`` up to
                                            100, ``find`` a nickname's place); its
                                            code and replays once the day has ended

A day or mode there is none of (never opened, in the future, no longer
kept) is a 404; a malformed day, page or nickname a 400; both with a JSON
error. Answers may be read by any site's scripts (``Access-Control-Allow-
Origin: *``): nothing in them is anyone's secret (docs/protocol.md, "The
daily deal").
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Final
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Response

from ...protocol import Reason
from ...race import RaceError
from ...store import StoreUnavailable
from ..daily.daily_service import PAGE_MAX, DailyDeals
from .http_routes import ApiHandler
from .results_api import json_answer, query_number

DEFAULT_COUNT: Final = 20
_OPEN: Final = {"Access-Control-Allow-Origin": "*", "Cache-Control": "no-cache"}


def _answer(status: HTTPStatus, body: object) -> Response:
    return json_answer(status, body, _OPEN)


def _error(status: HTTPStatus, reason: str, message: str) -> Response:
    return _answer(status, {"error": reason, "message": message})


def daily_api(daily: DailyDeals) -> ApiHandler:
    async def handle(target: str, headers: Headers) -> Response | None:
        split = urlsplit(target)
        parts = split.path.strip("/").split("/")
        if parts[:2] != ["api", "daily"] or len(parts) not in (2, 4):
            return None
        try:
            if len(parts) == 2:
                return _answer(HTTPStatus.OK, await daily.today_view())
            day, mode = parts[2], parts[3].upper()
            query = parse_qs(split.query)
            first = query_number(query, "first")
            count = query_number(query, "count")
            first = 1 if first is None else first
            count = DEFAULT_COUNT if count is None else count
            if first < 1 or not 1 <= count <= PAGE_MAX:
                raise RaceError(Reason.BAD_FIELD, f"first is 1 or more, count from 1 to {PAGE_MAX}")
            find = query.get("find")
            try:
                page = await daily.day_page(day, mode, first, count, find[-1] if find else None)
            except ValueError:
                return _error(HTTPStatus.BAD_REQUEST, Reason.BAD_FIELD.value,
                              f"a day is YYYY-MM-DD, not {day[:12]!r}")
            if page is None:
                return _error(HTTPStatus.NOT_FOUND, Reason.NO_DAILY.value,
                              f"there is no daily deal of {mode[:8]!r} on {day}")
            return _answer(HTTPStatus.OK, page)
        except RaceError as exc:
            return _error(HTTPStatus.BAD_REQUEST, exc.reason.value, exc.text)
        except StoreUnavailable:
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "storage unreachable")

    return handle
