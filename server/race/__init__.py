"""Rooms, races and leaderboards as pure state: no I/O, time is an argument."""

from .errors import RaceError
from .leaderboard import Entry, new_entry, shown, update_from_game
from .names import check_nickname
from .ranking import rank_score, ranked, seat_member, sort_key
from .room import Player, Room
from .settings import Settings, parse_settings

__all__ = [
    "Entry",
    "Player",
    "RaceError",
    "Room",
    "Settings",
    "check_nickname",
    "new_entry",
    "parse_settings",
    "rank_score",
    "ranked",
    "seat_member",
    "shown",
    "sort_key",
    "update_from_game",
]
