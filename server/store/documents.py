"""Versioned documents: a room's and a tournament's JSON, each in a hash
with its version (``rv``) and event version (``ev``), changed only by the
``commit`` script: the document if its version is still the one read, the
:class:`~.changes.Changes` it implies, its events recorded and published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from . import scripts
from .changes import DOCUMENT_KEYS, Changes
from .section import Section


@dataclass(frozen=True, slots=True)
class Committed:
    ok: bool
    v: int = 0
    rv: int = 0
    active: int = 0
    gone: bool = False  # the document does not exist (any more)


def event_body(event: dict[str, Any]) -> bytes:
    """An event's JSON without its opening brace: the script adds the version."""
    return orjson.dumps(event)[1:]


class Documents(Section):
    """The commit of a document, shared by rooms and tournaments."""

    async def commit_document(self, doc_keys: tuple[str, str, str], rv: int | None,
                              state: bytes, events: Sequence[dict[str, Any]], changes: Changes,
                              phase: str = "") -> Committed:
        """Write a document (``doc_keys``: its hash, its events and its
        channel) if its version is still ``rv`` (``None``: a new one), with
        ``changes`` and ``events``. Not ``ok``: reload and try again."""
        assert len(doc_keys) == DOCUMENT_KEYS
        reply = await self._run(scripts.COMMIT, [*doc_keys, *changes.keys], [
            "new" if rv is None else rv, state, self.event_cap, changes.ops_json(), phase,
            *(event_body(e) for e in events),
        ])
        if reply[0] == b"ok":
            return Committed(True, v=reply[1], rv=reply[2], active=reply[3])
        return Committed(False, gone=reply[1] == b"gone")
