"""Every Redis key and channel name, built here and nowhere else.

All keys of a room share the hash tag ``{room_id}`` so that a room's data
lives in one slot and its Lua scripts run on Redis Cluster (the store routes
every command and script by the slot of its first key); all keys of a
tournament share ``{tournament_id}``. A tournament's round is a room of its
own, in another slot: nothing touches a tournament's keys and a room's in one
call. A key's prefix says what it holds: ``kr:`` a room's, ``kt:`` a
tournament's, ``kp:`` a player's, ``ki:`` the indexes over all of them
(deadlines, places held, what one address did lately, the processes'
heartbeats), ``kl:`` the lobby's list of public rooms, ``kq:`` the quick
races, ``kd:`` the daily deal's, ``kw2:`` the winnable deals ready. No room
script touches a key outside its room:

- a deadline index is one sorted set on one Redis: :data:`DUE` for rooms,
  :data:`TOURNAMENTS_DUE` for tournaments. On a Redis Cluster each is split
  into :data:`SHARDS` sorted sets whose hash tags are chosen to fall in
  evenly spaced slots (so on masters that split the slots evenly, each holds
  its share), a room or tournament going to the shard of its id
  (:func:`shards`, :func:`shard_of`);
- a heartbeat key has no hash tag: each process's lands on a slot of its own;
- a player's keys share the hash tag of their public id ``{P}``; the indexes
  that find a player by a key's or a device-move code's digest have the
  digest for their hash tag (a slot each, reached by single-key commands).

:data:`KEYS` is the table of every key: its type, what it holds and how
long it lives. docs/operations.md prints it (:func:`markdown_table`; a test
holds the two equal). Keys written before a rename are moved once, at start
(:mod:`.migrations`).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Final

from .slots import SLOTS, slot


@dataclass(frozen=True, slots=True)
class Key:
    """One row of the key table: a key's pattern, its type, what it holds and
    how long it lives."""

    pattern: str
    type: str
    holds: str
    lifetime: str


#: a room's keys: given their expiry together, at each phase change
ROOM: Final = "the room's"
#: a tournament's keys: the same
TOURNAMENT: Final = "the tournament's"
#: a player's keys
PLAYER: Final = "the player's"
#: a count over a sliding window (a minute, ten, an hour, a day): the window after its last entry
WINDOW: Final = "its window after the last"

#: every key, in the order of docs/operations.md; the lifetimes of ROOM,
#: TOURNAMENT and PLAYER are those of :data:`LIFETIMES`
KEYS: Final = (
    Key("kr:{R}:room", "hash", "state (the room's JSON), rv (room version), ev (event version), live "
        "(race number while racing, else 0), active (seats still playing the live race), by (the "
        "address it was made from, for its place)", ROOM),
    Key("kr:{R}:ev", "list", "the last room events (256), JSON, each with its version", ROOM),
    Key("kr:{R}:lb", "hash", "seat -> leaderboard entry JSON (current race; a big room keeps only a "
        "line's fields)", ROOM),
    Key("kr:{R}:rank", "zset", "the current race's ranking: member a seat (5 digits), score its place "
        "(race.ranking.rank_score)", ROOM),
    Key("kr:{R}:hist", "hash", "cards on foundations (0..52) -> how many racers have that many", ROOM),
    Key("kr:{R}:on", "hash", "seat -> id of the connection that holds the seat", ROOM),
    Key("kr:{R}:r{n}:s{seat}", "hash", "ver (log length), seq (last client sequence number), snap "
        "(engine snapshot, while the game goes on), done (1 when the seat has finished, resigned or "
        "left), log, log2... (once its game is over: the whole log packed in pieces of at most 64 bytes, "
        "its commands shortened and separated by spaces, #seq before one whose seq is not the "
        "previous plus one: lua/lib/pack_seat.lua; the list and snap gone)", ROOM),
    Key("kr:{R}:r{n}:s{seat}:log", "list", "\"seq move\" entries: the seat's commands in order (its "
        "replay), while its game goes on", ROOM),
    Key("kr:{R}:ch", "chan", "room events (versioned) and notices (takeover; a big room's leaderboard "
        "tick)", "none (a channel)"),
    Key("kr:{R}:pl", "hash", "a room of thousands: seat -> nickname of every player", ROOM),
    Key("kr:{R}:nk", "hash", "a room of thousands: folded nickname -> seat (nicknames are unique)", ROOM),
    Key("kr:{R}:tk", "hash", "a room of thousands: seat token's hash -> seat", ROOM),
    Key("kr:{R}:ready", "set", "a room of thousands: seats marked ready in the lobby", ROOM),
    Key("kr:{R}:left", "set", "a room of thousands: seats that left during or after the race (gone at "
        "the rematch; their lines stay in its results)", ROOM),
    Key("kr:{R}:top", "str", "a room of thousands: the latest leaderboard tick as published", ROOM),
    Key("kr:{R}:pp", "hash", "seat -> id of the player (kp:{P}) whose results it counts for; rec -> "
        "the last race whose results went to them; in a daily deal's room, d:{P} -> the seat of "
        "player P's one ranked attempt", ROOM),
    Key("kr:{R}:gh", "hash", "a challenge: seat -> the player's ghost trace (race.ghosts)", ROOM),
    Key("kr:{R}:gz", "zset", "a challenge: the seats whose game is over, score their final place",
        ROOM),
    Key("kr:{R}:rated", "hash", "race -> the outcome of a rated race as computed once (JSON: family, "
        "when, each rated player's seat, rating read and rating after), applied to each player by "
        "r_apply", ROOM),
    Key("kr:{R}:ad", "hash", "a rated room's addresses (IPv6 by /64) -> 1: one seat per address "
        "(released by a leave before the race)", ROOM),
    Key("kt:{T}:t", "hash", "a tournament: state (its header, JSON), rv, ev (as a room's); max, reg (1 "
        "while registration is open), first (the first round not started), players, next (the next "
        "player number), withdrawn, kicked, in{f} (players whose first round is f), by (the address "
        "it was made from)", TOURNAMENT),
    Key("kt:{T}:ev", "list", "the tournament's last events", TOURNAMENT),
    Key("kt:{T}:ch", "chan", "the tournament's events", "none (a channel)"),
    Key("kt:{T}:pl", "hash", "player -> {nickname, fold, token, registered, first} (JSON)", TOURNAMENT),
    Key("kt:{T}:nk", "hash", "folded nickname -> player (nicknames are unique)", TOURNAMENT),
    Key("kt:{T}:tk", "hash", "player token's hash -> player (a kicked one's is gone)", TOURNAMENT),
    Key("kt:{T}:st", "hash", "player -> standing line JSON (race.standings)", TOURNAMENT),
    Key("kt:{T}:rank", "zset", "the standings: member a player (5 digits), score its place "
        "(race.ranking.standing_score); no kicked player", TOURNAMENT),
    Key("kt:{T}:out", "hash", "player -> withdrawn or kicked", TOURNAMENT),
    Key("kt:{T}:ban", "set", "folded nicknames the organizer banned", TOURNAMENT),
    Key("kt:{T}:rec", "str", "a lease: the process recording a round's results", "the lease's (seconds)"),
    Key("kt:{T}:guess", "zset", "wrong invite codes at a tournament -> when (ms)", WINDOW),
    Key("kp:{P}:p", "hash", "a player (P, their public id): nick, seen (ms), games, wins, finished, "
        "best:{MODE} (ms), streak, streak_best, streak_day, move and move_until (a pending "
        "device-move code's digest, expiry), k:{D} (a key's digest D -> when it was given)", PLAYER),
    Key("kp:{P}:h", "list", "the player's results, newest first, capped at 100: each a JSON array "
        "[ref, flags, kind, at, mode, ...] (player_state.py)", PLAYER),
    Key("kp:{P}:rh", "list", "the player's rated races, newest first, capped at 50: each a JSON array "
        "[ref, family, at, mu before, mu after, place, of]; a ref there was applied (r_apply.lua)",
        "as the player"),
    Key("ki:top:{F}", "zset", "a rating family's top list (d1, d3): player -> shown rating, players no "
        "longer provisional (forgetting removes; an expired player's member is dropped when a page "
        "meets it)", "none: one per family"),
    Key("kp:key:{D}", "str", "a player key's digest D -> P (the profile's k:{D} is the truth)",
        "--player-ttl after the key was last presented"),
    Key("kp:mv:{D}", "str", "a device-move code's digest -> P", "the code's (10 minutes)"),
    Key("kp:made:ADDR", "zset", "new players from one address -> when (ms)", WINDOW),
    Key("kp:claim:ADDR", "zset", "device-move codes tried from one address -> when (ms)", WINDOW),
    Key("ki:due:rooms", "zset", "room id -> when its race must be looked at (ms); R:seat -> when a "
        "challenge player's time runs out", "none: a room leaves it when its race ended"),
    Key("ki:due:tournaments", "zset", "tournament id -> when a sweeper must look at it (ms)",
        "none: a tournament leaves it when nothing is scheduled"),
    Key("ki:live:rooms", "zset", "room id -> until when it holds a place under --max-rooms (ms)",
        "none: a place past its time is dropped when counted"),
    Key("ki:live:tournaments", "zset", "the same for --max-tournaments", "the same"),
    Key("ki:due:rooms:{dN-K}", "zset", "on a Redis Cluster, shard N of ki:due:rooms (and so for the "
        "three others)", "as the index"),
    Key("ki:made:{ADDR}", "zset", "creations from one address -> when (ms)", WINDOW),
    Key("ki:held:{ADDR}:KIND", "zset", "the rooms (KIND room) or tournaments (tournament) made from "
        "one address -> until when each holds its place (ms), and a creation's reservation; KIND "
        "challenge: the challenges open from it", "its last place's"),
    Key("ki:reg:{ADDR}", "zset", "registrations from one address -> when (ms)", WINDOW),
    Key("ki:quick:{ADDR}", "zset", "quick-race requests from one address -> when (ms), at most "
        "--quick-per-minute (a refused one adds nothing)", WINDOW),
    Key("ki:guess:{ADDR}", "zset", "wrong invite codes from one address -> when (ms)", WINDOW),
    Key("ki:proc:ID", "str", "a live server process's heartbeat", "--presence-timeout after its last "
        "beat"),
    Key("ki:wait", "chan", "never listened to: see batch.py (durability replica)", "none (a channel)"),
    Key("kl:{pub}:wait", "zset", "public rooms waiting in their lobby -> when listed (ms)",
        "none: a room leaves when it starts or is gone"),
    Key("kl:{pub}:run", "zset", "public rooms racing -> their race's start (ms)", "none: a room "
        "leaves when its race ends"),
    Key("kl:{pub}:who", "hash", "public room listed -> the address that listed it", "as the list"),
    Key("kl:{pub}:n", "hash", "address -> how many public rooms it has listed (the four kl:{pub} keys "
        "share one slot: one script keeps them together)", "as the list"),
    Key("kq:{MODE}:q", "hash", "the open quick races of a mode: room -> \"seats (counted as sent) closes "
        "(ms, 0: not yet) opened (ms) rating (its opener's)\"", "--lobby-ttl after its last player"),
    Key("kq:{MODE}:by", "zset", "the same rooms by their opener's rating", "as kq:{MODE}:q"),
    Key("kq:{MODE}:at", "zset", "the same rooms by when they opened", "as kq:{MODE}:q"),
    Key("kd:made:DAY:ADDR", "str", "daily-deal seats taken from one address on a UTC day: a count, "
        "never past its cap", "until the day's end"),
    Key("kd:rank:DAY:MODE:ADDR", "set", "the players of one address whose attempt at a day's deal of a "
        "mode ranks (at most --daily-ranked-per-address)", "until the day's end"),
    Key("kw2:{MODE}", "set", "certified winnable KL2 deal codes of a mode (D1N, D3N, D1V, D3V) ready "
        "to be dealt", "none: each code is taken once"),
)

#: how long the keys of a room, a tournament and a player live: one expiry
#: for all the keys of each, set by the scripts that change them
#: (lua/lib/keep.lua gives a key created by a script its room's)
LIFETIMES: Final = (
    (ROOM, "a lobby: --lobby-ttl after its last change; racing: until its deadline (its time limit, "
     "or 24 hours), then as finished; finished: --finished-ttl after its end (a challenge: "
     "--challenge-ttl after its window closed; a tournament's round: --tournament-ttl)"),
    (TOURNAMENT, "--lobby-ttl after its last change while nobody registered (and at least a day past "
     "its last set start), then --tournament-ttl after its last change"),
    (PLAYER, "--player-ttl after their last visit with their key or their last result (30 days for a "
     "player who never had a result)"),
)


def markdown_table() -> str:
    """docs/operations.md's table of the keys, and how long a room, a
    tournament and a player live."""
    rows = ["| key | type | holds | lives |", "|---|---|---|---|"]
    rows += [f"| `{k.pattern}` | {k.type} | {k.holds} | {k.lifetime} |" for k in KEYS]
    rows += ["", "| whose | how long |", "|---|---|"]
    rows += [f"| {whose} | {how} |" for whose, how in LIFETIMES]
    return "\n".join(rows) + "\n"

DUE: Final = "ki:due:rooms"
TOURNAMENTS_DUE: Final = "ki:due:tournaments"
SHARDS: Final = 16
ORDER_CHANNEL: Final = "ki:wait"


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
    Cluster: ``ki:due:rooms:{dN-K}``, one per shard."""
    return tuple(f"{index}:{{{tag}}}" for tag in _SHARD_TAGS)


def shard_of(member_id: str, keys: tuple[str, ...]) -> str:
    """The key of an index (one key, or the keys of :func:`shards`) that holds
    ``member_id``."""
    if len(keys) == 1:
        return keys[0]
    return keys[zlib.crc32(member_id.encode()) % len(keys)]


PUBLIC_KEYS: Final = ("kl:{pub}:wait", "kl:{pub}:run", "kl:{pub}:who", "kl:{pub}:n")


def quick_races(mode: str) -> list[str]:
    """The open quick races of ``mode`` (``D1N``...): their lines, by
    rating, by opening; one hash tag per mode."""
    return [f"kq:{{{mode}}}:q", f"kq:{{{mode}}}:by", f"kq:{{{mode}}}:at"]


LIVE_ROOMS: Final = "ki:live:rooms"
LIVE_TOURNAMENTS: Final = "ki:live:tournaments"


def winnable(mode: str) -> str:
    """The ready certified winnable codes of ``mode`` (``D1N``...): its own hash tag.
    KL2 codes only: the name is new with them, so no stored KL1 code is dealt."""
    return f"kw2:{{{mode}}}"


def creations(address: str) -> str:
    return f"ki:made:{{{address}}}"


def held(address: str, kind: str) -> str:
    """The places the rooms or tournaments (``kind``) made from an address
    hold: in the slot of its creations, so one script checks both."""
    return f"ki:held:{{{address}}}:{kind}"


def registrations(address: str) -> str:
    return f"ki:reg:{{{address}}}"


def quick_joins(address: str) -> str:
    return f"ki:quick:{{{address}}}"


def invite_guesses(address: str) -> str:
    return f"ki:guess:{{{address}}}"


def tournament_guesses(tournament_id: str) -> str:
    return f"kt:{{{tournament_id}}}:guess"


def proc(proc_id: str) -> str:
    return f"ki:proc:{proc_id}"


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
    return f"ki:top:{{{family}}}"


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
