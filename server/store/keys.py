"""Every Redis key and channel name, built here and nowhere else.

All keys of a room share the hash tag ``{room_id}`` so that a room's data
lives in one slot and its Lua scripts run on Redis Cluster (the store routes
every command and script by the slot of its first key); all keys of a
tournament share ``{tournament_id}``. A tournament's round is a room of its
own, in another slot: nothing touches a tournament's keys and a room's in one
call. Outside rooms and tournaments there are only the deadline indexes,
the public rooms' list and the quick races, which no room script touches,
and the process heartbeats:

- a deadline index is one sorted set on one Redis: :data:`DUE` for rooms,
  :data:`TOURNAMENTS_DUE` for tournaments. On a Redis Cluster each is split
  into :data:`DUE_SHARDS` sorted sets whose hash tags are chosen to fall in
  evenly spaced slots (so on masters that split the slots evenly, each holds
  its share), a room or tournament going to the shard of its id
  (:func:`due_shards`, :func:`due`);
- a heartbeat key has no hash tag: each process's lands on a slot of its own;
- a player's keys share the hash tag of their public id ``{P}``; the indexes
  that find a player by a key's or a device-move code's digest have the
  digest for their hash tag (a slot each, reached by single-key commands).

======================  ====  ==================================================
key                     type  holds
======================  ====  ==================================================
kr:{R}:room             hash  state (room JSON), rv (room version), ev (event
                              version), live (race number while racing, else 0),
                              active (seats still playing the live race), by (the
                              address it was made from, for its place)
kr:{R}:ev               list  the last room events, JSON, each with its version
kr:{R}:lb               hash  seat -> leaderboard entry JSON (current race; a big
                              room keeps only a line's fields)
kr:{R}:rank             zset  the current race's ranking: member a seat (5 digits),
                              score its place (race.ranking.rank_score)
kr:{R}:hist             hash  cards on foundations (0..52) -> how many racers have
                              that many: the field's progress at a glance
kr:{R}:on               hash  seat -> id of the connection that holds the seat
kr:{R}:r{n}:s{seat}     hash  ver (log length), seq (last client sequence
                              number), snap (engine snapshot), done (1 when the
                              seat has finished, resigned or left)
kr:{R}:r{n}:s{seat}:log list  "seq move" entries: the seat's commands in order
kr:{R}:ch               chan  room events (versioned) and notices (takeover; a big
                              room's leaderboard tick)
rooms whose seats live in hashes (a room of thousands), outside the room's JSON:
kr:{R}:pl               hash  seat -> nickname of every player in the room
kr:{R}:nk               hash  folded nickname -> seat (nicknames are unique)
kr:{R}:tk               hash  seat token's hash -> seat
kr:{R}:ready            set   seats marked ready in the lobby
kr:{R}:left             set   seats that left during or after the race (gone at the
                              rematch; their lines stay in its results)
kr:{R}:top              str   the latest leaderboard tick as published
kr:{R}:pp               hash  seat -> id of the player (kp:{P}) whose results it counts
                              for: the first identified player who held it; rec -> the
                              last race whose results went to those players; in a daily
                              deal's room, d:{P} -> the seat of player P's one ranked
                              attempt (taken when it begins)
a challenge's (a room open for a window, each player on their own clock):
kr:{R}:gh               hash  seat -> the player's ghost trace (race.ghosts: their
                              progress second by second of their own clock)
kr:{R}:gz               zset  the seats whose game is over (ghosts), score their final
                              place (race.ranking.rank_score)
kt:{T}:t                hash  a tournament: state (its header, JSON), rv, ev (as a
                              room's); max, reg (1 while registration is open),
                              first (the first round not started), players
                              (registered, kicked ones not counted), next (the next
                              player number), withdrawn, kicked (counts), in{f}
                              (players registered whose first round is f), by (the
                              address it was made from, for its place)
kt:{T}:ev               list  the tournament's last events
kt:{T}:ch               chan  the tournament's events
kt:{T}:pl               hash  player -> {nickname, fold, token, registered, first} (JSON)
kt:{T}:nk               hash  folded nickname -> player (nicknames are unique)
kt:{T}:tk               hash  player token's hash -> player (a kicked one's is gone)
kt:{T}:st               hash  player -> standing line JSON (race.standings: totals
                              and one result per round counted)
kt:{T}:rank             zset  the standings: member a player (5 digits), score its
                              place (race.ranking.standing_score); no kicked player
kt:{T}:out              hash  player -> withdrawn or kicked
kt:{T}:ban              set   folded nicknames the organizer banned
kt:{T}:rec              str   a lease: the process recording a round's results
kr:due                  zset  room id -> when its race must be looked at (ms); and
                              ``R:seat`` -> when a challenge player's time runs out
kt:due                  zset  tournament id -> when a round it is starting must be
                              looked at (ms): any process's sweeper settles it
kr:due:{dN-K}           zset  on a Redis Cluster, shard N of kr:due (and so for
                              kt:due, kr:live, kt:live)
kr:proc:ID              str   a live server process's heartbeat (expires)
kr:live / kt:live       zset  room / tournament id -> until when it holds a place
                              under --max-rooms / --max-tournaments (ms)
kr:made:{ADDR}          zset  creations from one address -> when (ms), the last
                              minute's (expires)
kr:held:{ADDR}:KIND     zset  the rooms (KIND room) or tournaments (tournament) made
                              from one address -> until when each holds its place
                              (ms); also a creation's reservation until it is made;
                              KIND challenge: the challenges open from it (a place ->
                              until its window closes), capped by
                              --challenges-per-address
kr:reg:{ADDR}           zset  registrations from one address -> when (ms), the
                              last minute's (expires)
kr:guess:{ADDR}         zset  wrong invite codes from one address -> when (ms)
kr:quick:{ADDR}         zset  quick-race requests from one address -> when (ms), the
                              last minute's, at most --quick-per-minute (a refused
                              one adds nothing; expires)
kt:{T}:guess            zset  wrong invite codes at a tournament -> when (ms)
kr:wait                 chan  never listened to: see batch.py (durability replica)
kp:{P}:p                hash  a player (P, their public id): nick, seen (ms), games, wins,
                              finished, best:{MODE} (ms), streak, streak_best, streak_day
                              (days since 1970-01-01), move and move_until (a pending
                              device-move code's digest, expiry), k:{D} (a key's digest
                              D -> when it was given, ms: one per device)
kp:{P}:h                list  the player's results, newest first, capped: each a JSON
                              array [ref, flags, kind, at, mode, ...] (player_state.py)
                              r:{F} (the rating in family F, d1 or d3: "mu sigma races
                              at", see race/rating.py)
kp:{P}:rh               list  the player's rated races, newest first, capped (50): each
                              a JSON array [ref, family, at, mu before, mu after,
                              place, of]; a ref there was applied (store/lua/r_apply.lua)
kr:top:{F}              zset  a family's top list: player -> shown rating, players no
                              longer provisional (forgetting removes; an expired
                              player's member is dropped when a page meets it)
kr:{R}:rated            hash  race -> the outcome of a rated race as computed once (JSON:
                              family, when, each rated player's seat, rating read
                              and rating after); applied to each player by
                              r_apply; kept as long as the room
kr:{R}:ad               hash  a rated room's addresses (IPv6 by /64) -> 1: one seat per
                              address (released by a leave before the race)
kp:key:{D}              str   a player key's digest D -> P: how a key is found (the
                              profile's k:{D} is the truth: a key it no longer holds
                              finds nobody)
kp:mv:{D}               str   a device-move code's digest -> P (expires with the code)
kp:made:ADDR            zset  new players from one address -> when (ms), the last hour's
kp:claim:ADDR           zset  device-move codes tried from one address, the last minute's
kr:{pub}:wait           zset  public rooms waiting in their lobby -> when listed (ms)
kr:{pub}:run            zset  public rooms racing -> their race's start (ms)
kr:{pub}:who            hash  public room listed -> the address that listed it
kr:{pub}:n              hash  address -> how many public rooms it has listed
                              (the four share one slot: one script keeps them
                              together; rooms are listed apart from their own
                              commits, see app/rooms/public_rooms.py)
kq:{MODE}:q             hash  the open quick races of a mode: room -> "seats (counted as
                              sent) closes (ms, 0: not yet) opened (ms) rating (its
                              opener's)" (app/rooms/quick_races.py, quick.lua)
kq:{MODE}:by            zset  the same rooms by their opener's rating
kq:{MODE}:at            zset  the same rooms by when they opened
kd:made:DAY:ADDR        str   daily-deal seats taken from one address on a UTC day: a
                              count (never past its cap; expires at the day's end)
kd:rank:DAY:MODE:ADDR   set   the players of one address whose attempt at a day's deal
                              of a mode ranks (at most --daily-ranked-per-address;
                              expires at the day's end)
kw2:{MODE}              set   certified winnable KL2 deal codes of a mode (D1N,
                              D3N, D1V, D3V) ready to be dealt: each a slot of its own
kw:{MODE}               set   the KL1 codes of the same, from before KL2: never
                              read, deleted by a process that refills the sets
======================  ====  ==================================================
"""

from __future__ import annotations

import zlib
from typing import Final

from .slots import SLOTS, slot

DUE: Final = "kr:due"
TOURNAMENTS_DUE: Final = "kt:due"
SHARDS: Final = 16
ORDER_CHANNEL: Final = "kr:wait"


def _shard_tags() -> tuple[str, ...]:
    """``dN-K``, K the first whose slot is in the Nth 16th of the slots."""
    width = SLOTS // SHARDS
    out = []
    for n in range(SHARDS):
        k = 0
        while slot(f"d{n}-{k}") // width != n:
            k += 1
        out.append(f"d{n}-{k}")
    return tuple(out)


_SHARD_TAGS: Final = _shard_tags()


def shards(index: str) -> tuple[str, ...]:
    """The keys of an index (:data:`DUE`, :data:`LIVE_ROOMS`, ...) on a Redis
    Cluster: ``kr:due:{dN-K}``, one per shard."""
    return tuple(f"{index}:{{{tag}}}" for tag in _SHARD_TAGS)


#: the rooms' deadline index on a Redis Cluster
DUE_SHARD_KEYS: Final = shards(DUE)


def shard_of(member_id: str, keys: tuple[str, ...]) -> str:
    """The key of an index (one key, or the keys of :func:`shards`) that holds
    ``member_id``."""
    if len(keys) == 1:
        return keys[0]
    return keys[zlib.crc32(member_id.encode()) % len(keys)]


PUBLIC_KEYS: Final = ("kr:{pub}:wait", "kr:{pub}:run", "kr:{pub}:who", "kr:{pub}:n")


def quick_races(mode: str) -> list[str]:
    """The open quick races of ``mode`` (``D1N``...): their lines, by
    rating, by opening; one hash tag per mode."""
    return [f"kq:{{{mode}}}:q", f"kq:{{{mode}}}:by", f"kq:{{{mode}}}:at"]


LIVE_ROOMS: Final = "kr:live"
LIVE_TOURNAMENTS: Final = "kt:live"


def winnable(mode: str) -> str:
    """The ready certified winnable codes of ``mode`` (``D1N``...): its own hash tag.
    KL2 codes only: the name is new with them, so no stored KL1 code is dealt."""
    return f"kw2:{{{mode}}}"


def winnable_kl1(mode: str) -> str:
    """Where the winnable KL1 codes of ``mode`` were kept before KL2 (35-bit
    numbers, a brute force finds their deals): no longer read, only deleted."""
    return f"kw:{{{mode}}}"


def creations(address: str) -> str:
    return f"kr:made:{{{address}}}"


def held(address: str, kind: str) -> str:
    """The places the rooms or tournaments (``kind``) made from an address
    hold: in the slot of its creations, so one script checks both."""
    return f"kr:held:{{{address}}}:{kind}"


def registrations(address: str) -> str:
    return f"kr:reg:{{{address}}}"


def quick_joins(address: str) -> str:
    return f"kr:quick:{{{address}}}"


def invite_guesses(address: str) -> str:
    return f"kr:guess:{{{address}}}"


def tournament_guesses(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:guess"


def proc(proc_id: str) -> str:
    return f"kr:proc:{proc_id}"


def room(room_id: str) -> str:
    return f"kr:{{{room_id}}}:room"


def events(room_id: str) -> str:
    return f"kr:{{{room_id}}}:ev"


def board(room_id: str) -> str:
    return f"kr:{{{room_id}}}:lb"


def online(room_id: str) -> str:
    return f"kr:{{{room_id}}}:on"


def seat(room_id: str, race: int, seat_no: int) -> str:
    return f"kr:{{{room_id}}}:r{race}:s{seat_no}"


def log(room_id: str, race: int, seat_no: int) -> str:
    return f"kr:{{{room_id}}}:r{race}:s{seat_no}:log"


def ranking(room_id: str) -> str:
    return f"kr:{{{room_id}}}:rank"


def histogram(room_id: str) -> str:
    return f"kr:{{{room_id}}}:hist"


def players(room_id: str) -> str:
    return f"kr:{{{room_id}}}:pl"


def nicknames(room_id: str) -> str:
    return f"kr:{{{room_id}}}:nk"


def tokens(room_id: str) -> str:
    return f"kr:{{{room_id}}}:tk"


def ready(room_id: str) -> str:
    return f"kr:{{{room_id}}}:ready"


def left(room_id: str) -> str:
    return f"kr:{{{room_id}}}:left"


def top(room_id: str) -> str:
    return f"kr:{{{room_id}}}:top"


def seat_players(room_id: str) -> str:
    return f"kr:{{{room_id}}}:pp"


def ghost_traces(room_id: str) -> str:
    return f"kr:{{{room_id}}}:gh"


def ghosts(room_id: str) -> str:
    return f"kr:{{{room_id}}}:gz"


def channel(room_id: str) -> str:
    return f"kr:{{{room_id}}}:ch"


def tournament(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:t"


def tournament_events(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:ev"


def tournament_channel(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:ch"


def tournament_players(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:pl"


def tournament_nicknames(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:nk"


def tournament_tokens(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:tk"


def standings(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:st"


def standings_rank(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:rank"


def tournament_out(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:out"


def tournament_banned(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:ban"


def recording(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:rec"


def tournament_keys(tournament_id: str) -> tuple[str, ...]:
    """Every key of a tournament."""
    t = tournament_id
    return (tournament(t), tournament_events(t), tournament_players(t), tournament_nicknames(t),
            tournament_tokens(t), standings(t), standings_rank(t), tournament_out(t),
            tournament_banned(t))


def id_of_channel(name: str) -> str:
    """The room or tournament id in a channel name."""
    return name[name.index("{") + 1: name.index("}")]


def is_tournament_channel(name: str) -> bool:
    return name.startswith("kt:")


def player(player_id: str) -> str:
    return f"kp:{{{player_id}}}:p"


def player_history(player_id: str) -> str:
    return f"kp:{{{player_id}}}:h"


def rating_history(player_id: str) -> str:
    return f"kp:{{{player_id}}}:rh"


def rating_top(family: str) -> str:
    """The top list of a rating family (``d1``, ``d3``): its own slot."""
    return f"kr:top:{{{family}}}"


def rated_addresses(room_id: str) -> str:
    return f"kr:{{{room_id}}}:ad"


def race_ratings(room_id: str) -> str:
    return f"kr:{{{room_id}}}:rated"


def key_index(digest: str) -> str:
    """Where a player key's digest finds its player."""
    return f"kp:key:{{{digest}}}"


def move_index(digest: str) -> str:
    """Where a device-move code's digest finds its player."""
    return f"kp:mv:{{{digest}}}"


def daily_attempts(day: str, address: str) -> str:
    return f"kd:made:{day}:{address}"


def daily_ranked(day: str, mode: str, address: str) -> str:
    return f"kd:rank:{day}:{mode}:{address}"


def new_players(address: str) -> str:
    return f"kp:made:{address}"


def move_claims(address: str) -> str:
    return f"kp:claim:{address}"
