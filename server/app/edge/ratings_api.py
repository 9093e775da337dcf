"""The HTTP API of ratings' top lists.

    GET /api/ratings/{family}?first=1&count=50
        a page of the family's top list (``d1``: draw one, ``d3``: draw
        three), best first: ``{"family", "first", "of", "lines": [{"place",
        "id", "nickname", "rating"}]}``; ``first`` from 1, ``count`` 1 to
        :data:`~server.app.players.ratings.TOP_MAX`. Only players whose
        rating is no longer provisional are listed.

A family that is not one, or a number that is not a whole number in range,
gets a 4xx with a JSON body ``{"error", "message"}``.
"""

from __future__ import annotations

from http import HTTPStatus
from urllib.parse import parse_qs

import structlog
from websockets.datastructures import Headers
from websockets.http11 import Response

from ...protocol import Reason
from ...race import RaceError
from ...race.rating import FAMILIES
from ...store import StoreUnavailable
from ..players.ratings import TOP_MAX, Ratings
from .http_routes import ApiHandler, error
from .results_api import json_answer, query_number

log = structlog.get_logger("app.edge.ratings_api")

DEFAULT_COUNT = 50


def ratings_api(ratings: Ratings) -> ApiHandler:
    async def handle(target: str, headers: Headers) -> Response | None:
        path, _, query_text = target.partition("#")[0].partition("?")
        parts = path.strip("/").split("/")
        if len(parts) != 3 or parts[:2] != ["api", "ratings"]:
            return None
        family = parts[2].lower()
        if family not in FAMILIES:
            return error(HTTPStatus.NOT_FOUND, "unknown_family",
                         f"there is no rating family {parts[2][:20]!r}: d1 or d3")
        try:
            query = parse_qs(query_text, max_num_fields=20)
            first, count = query_number(query, "first"), query_number(query, "count")
            first = 1 if first is None else first
            count = DEFAULT_COUNT if count is None else count
            if first < 1 or not 1 <= count <= TOP_MAX:
                raise RaceError(Reason.BAD_FIELD, f"first is 1 or more, count 1 to {TOP_MAX}")
            total, lines = await ratings.top(family, first - 1, count)
        except RaceError as exc:
            return error(HTTPStatus.BAD_REQUEST, exc.reason.value, exc.text)
        except ValueError:
            return error(HTTPStatus.BAD_REQUEST, Reason.BAD_FIELD.value, "too many query fields")
        except StoreUnavailable:
            return error(HTTPStatus.SERVICE_UNAVAILABLE, Reason.UNAVAILABLE.value,
                         "storage unreachable")
        return json_answer(HTTPStatus.OK, {"family": family, "first": first, "of": total,
                                           "lines": lines})

    return handle
