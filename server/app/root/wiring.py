"""Where the services are connected: what the rooms call at points of a
room's life, given by the services built on them. Made here, in the root,
once every service exists, so that no service sets another's hooks."""

from __future__ import annotations

from ..daily.daily_service import DailyDeals
from ..players.player_service import Players
from ..players.ratings import Ratings
from ..rooms.room_service import RoomHooks, Rooms
from ..tournaments.tournament_service import Tournaments


def connect(rooms: Rooms, *, tournaments: Tournaments | None = None, players: Players | None = None,
            daily: DailyDeals | None = None, ratings: Ratings | None = None) -> None:
    """Connect the rooms to the services built on them (those given: a test
    or a bench may make only some)."""
    rounds = tournaments.rounds if tournaments is not None else None
    rooms.connect(RoomHooks(
        round_over=rounds.round_over if rounds else None,
        round_seat=rounds.seat if rounds else None,
        round_player=rounds.may_play if rounds else None,
        race_over=((players.race_over,) if players else ()) + ((ratings.race_over,) if ratings else ()),
        before_begin=(daily.before_begin,) if daily else (),
        game_over=(daily.game_over,) if daily else (),
    ))
