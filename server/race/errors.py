"""The one error the race state machines raise: a refusal with a reason code."""

from __future__ import annotations

from ..protocol.reasons import DEFAULT_TEXT, Reason


class RaceError(Exception):
    """A command the room's state refuses; nothing was changed."""

    def __init__(self, reason: Reason, text: str | None = None) -> None:
        super().__init__(text or DEFAULT_TEXT[reason])
        self.reason = reason
        self.text = text or DEFAULT_TEXT[reason]
