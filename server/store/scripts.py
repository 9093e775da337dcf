"""The Lua scripts: every state change is one of these, run atomically.

Events are stored and published as JSON objects whose first member is the
version the script gives them: the caller passes the event's body without its
opening brace and the script prepends ``{"v":N,``. Notices (``{"x": kind,
...}``) are published but not stored: a takeover, a kick in a big room, a big
room's leaderboard tick.

Big rooms (see :mod:`.keys`) keep their seats in hashes. Every script names
in its KEYS each key it touches (a cluster checks them before it runs the
script): the scripts that visit every seat of a big room (a start, a
rematch) touch only the room's hashes, and a racer's seat is made by the
``move`` of their first command. Leaderboard lines are built from JSON
pieces the caller passes (``'{"seat":' .. seat .. piece``): the scripts
never encode JSON themselves, except for small numbers (and the nickname
of a player record, with ``cjson``).

**Publishing.** A script never calls ``PUBLISH`` or ``SPUBLISH`` itself (a
:class:`Script` that does is refused at import): it calls
``publish(channel, message)``, a Lua function of the prelude every script gets
(``push_event`` of :data:`_PUSH_EVENT` uses it). Each script is rendered twice,
once per way the store runs: with ``PUBLISH`` for one Redis, with
``SPUBLISH`` for a Redis Cluster (sharded pub/sub: the message stays on the
shard that owns the channel's slot, instead of crossing the whole cluster).
The store picks the rendering of its mode (``Script.rendered[mode]``,
``Script.shas[mode]``), so a new script publishes correctly on both by
following this rule. The channel goes in the script's KEYS like the room's
keys (all with the room's hash tag): a cluster then checks it is in the
script's slot, and the store routes the call by the slot of its first key.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Final

#: the publish command of each rendering: index 0 one Redis, 1 a Redis Cluster
PUBLISH_COMMANDS: Final = ("PUBLISH", "SPUBLISH")
CLASSIC: Final = 0
SHARDED: Final = 1

_PRELUDE: Final = """local function publish(channel, message)
  return redis.call('{command}', channel, message)
end
"""
_DIRECT_PUBLISH: Final = re.compile(r"""['"]S?PUBLISH['"]""", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Script:
    name: str
    source: str  # as written: publishes with publish(channel, message)
    rendered: tuple[str, str] = field(init=False)  # the source run, by mode (CLASSIC, SHARDED)
    shas: tuple[str, str] = field(init=False)  # what EVALSHA names each by, hashed once

    def __post_init__(self) -> None:
        if _DIRECT_PUBLISH.search(self.source):
            raise ValueError(f"script {self.name!r} publishes directly: call publish(channel, "
                             "message) so that it also runs on a Redis Cluster")
        classic, sharded = (_PRELUDE.replace("{command}", command) + self.source
                            for command in PUBLISH_COMMANDS)
        object.__setattr__(self, "rendered", (classic, sharded))
        object.__setattr__(self, "shas", (_sha(classic), _sha(sharded)))


def _sha(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


_PUSH_EVENT: Final = """
local function push_event(ev_key, channel, body, v, cap)
  local e = '{"v":' .. v .. ',' .. body
  redis.call('RPUSH', ev_key, e)
  redis.call('LTRIM', ev_key, -cap, -1)
  publish(channel, e)
end
"""

#: a key created by a script lives as long as its room
_KEEP: Final = """
local function keep(key, room_key)
  local ttl = redis.call('PTTL', room_key)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
"""

_MEMBER: Final = """
local function member(seat) return string.format('%05d', tonumber(seat)) end
"""

#: A game command of a seat: check, append (the log has a cap), snapshot,
#: leaderboard, event, publish.
#: A big room's command records no event (its leaderboard goes out by ticks):
#: it updates the ranking and the field's progress instead, and answers the rank.
MOVE: Final = Script("move", _PUSH_EVENT + """
-- KEYS: 1 room, 2 seat, 3 log, 4 lb, 5 ev, 6 on, 7 channel, 8 rank, 9 hist
-- ARGV: 1 race, 2 seat no, 3 connection id, 4 expected version, 5 seq, 6 log entry,
--       7 snapshot, 8 lb entry, 9 event body, 10 '1' if the seat is done after it, 11 event cap,
--       big rooms: 12 rank score, 13 member, 14 cards on foundations before, 15 after,
--       16 status before, 17 after ('' for a small room); 18 the most commands the
--       seat's log may hold with this one stored ('full' past it)
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[1] then return {'not_playing'} end
local s = redis.call('HMGET', KEYS[2], 'ver', 'seq', 'done')
local fresh = false
if not s[1] then
  -- no seat in this race; but a big room's racer (ranked in it) who has not
  -- played yet gets theirs with their first command
  if not ARGV[13] or ARGV[13] == '' or not redis.call('ZSCORE', KEYS[8], ARGV[13]) then
    return {'not_playing'}
  end
  s, fresh = {'0', '0', '0'}, true
end
-- a seat done is refused first: a player withdrawn from a tournament is out
-- of the round's race ('left') and no longer holds the seat, yet was not taken over
if s[3] == '1' then return {'not_playing'} end
if redis.call('HGET', KEYS[6], ARGV[2]) ~= ARGV[3] then return {'taken_over'} end
if tonumber(ARGV[5]) <= tonumber(s[2]) then return {'seq', s[2], s[1]} end
if s[1] ~= ARGV[4] then return {'version', s[1]} end
if tonumber(s[1]) >= tonumber(ARGV[18]) then return {'full'} end
redis.call('HSET', KEYS[2], 'ver', tonumber(s[1]) + 1, 'seq', ARGV[5], 'snap', ARGV[7])
if fresh then
  redis.call('HSET', KEYS[2], 'done', 0)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
if redis.call('RPUSH', KEYS[3], ARGV[6]) == 1 then
  redis.call('PEXPIRE', KEYS[3], redis.call('PTTL', KEYS[2]))
end
redis.call('HSET', KEYS[4], ARGV[2], ARGV[8])
local active = -1
if ARGV[10] == '1' then
  redis.call('HSET', KEYS[2], 'done', '1')
  active = redis.call('HINCRBY', KEYS[1], 'active', -1)
end
if ARGV[12] and ARGV[12] ~= '' then
  redis.call('ZADD', KEYS[8], ARGV[12], ARGV[13])
  if ARGV[14] ~= ARGV[15] then
    redis.call('HINCRBY', KEYS[9], ARGV[14], -1)
    redis.call('HINCRBY', KEYS[9], ARGV[15], 1)
  end
  if ARGV[16] ~= ARGV[17] then
    redis.call('HINCRBY', KEYS[9], 's:' .. ARGV[16], -1)
    redis.call('HINCRBY', KEYS[9], 's:' .. ARGV[17], 1)
  end
  return {'ok', 0, active, redis.call('ZRANK', KEYS[8], ARGV[13]) + 1, redis.call('ZCARD', KEYS[8])}
end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[5], KEYS[7], ARGV[9], v, tonumber(ARGV[11]))
return {'ok', v, active, 0, 0}
""")

#: Every seat of a big room gets a fresh line, status ``lobby`` or ``racing``
#: (built from the caller's JSON tail), all of the same score; with a race,
#: every one of them is ranked in it (its seat is made by its first command,
#: see ``move``). Players who left the last race go first.
_FIELD: Final = """
local function field_reset(pl, lb, rank, hist, ready, left, room, tail, score, race, ttl)
  for _, seat in ipairs(redis.call('SMEMBERS', left)) do redis.call('HDEL', pl, seat) end
  redis.call('DEL', left, lb, rank, hist, ready)
  local all = redis.call('HGETALL', pl)
  local count = 0
  for i = 1, #all, 2 do
    local seat = all[i]
    local name = cjson.encode(cjson.decode(all[i + 1]).nickname)
    redis.call('HSET', lb, seat, '{"seat":' .. seat .. ',"nickname":' .. name .. tail)
    redis.call('ZADD', rank, score, member(seat))
    count = count + 1
  end
  if race ~= '0' then
    redis.call('HSET', hist, '0', count, 's:racing', count)
    redis.call('HSET', room, 'live', race, 'active', count)
  else
    redis.call('HSET', room, 'live', 0, 'active', 0)
  end
  redis.call('HSET', room, 'players', count)
  for _, key in ipairs({lb, rank, hist}) do redis.call('PEXPIRE', key, ttl) end
end
"""

#: A room change: check the room version, write the state, run the listed
#: writes, record and publish the events.
COMMIT: Final = Script("commit", _PUSH_EVENT + _MEMBER + _FIELD + """
-- KEYS: 1 room, 2 ev, 3 channel, 4.. keys named by the ops
-- ARGV: 1 expected room version ('new': the room must not exist), 2 room JSON,
--       3 event cap, 4 ops: JSON array of [command, key index, args...], 5 the room's
--       phase ('' for a tournament), 6.. event bodies
-- An op FIELD_RESET names its keys by index: pl, lb, rank, hist, ready, left, room,
-- then tail, score, race ('0': a lobby), ttl ms.
local rv = redis.call('HGET', KEYS[1], 'rv')
if ARGV[1] == 'new' then
  if rv then return {'conflict', rv} end
  rv = '0'
elseif rv ~= ARGV[1] then
  return {'conflict', rv or 'gone'}
end
rv = tonumber(rv) + 1
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'rv', rv)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'phase', ARGV[5]) end
for _, op in ipairs(cjson.decode(ARGV[4])) do
  if op[1] == 'FIELD_RESET' then
    field_reset(KEYS[op[2]], KEYS[op[3]], KEYS[op[4]], KEYS[op[5]], KEYS[op[6]], KEYS[op[7]],
                KEYS[op[8]], op[9], op[10], op[11], op[12])
  else
    local args = {op[1], KEYS[op[2]]}
    for i = 3, #op do args[#args + 1] = op[i] end
    redis.call(unpack(args))
  end
end
local v = tonumber(redis.call('HGET', KEYS[1], 'ev') or '0')
for i = 6, #ARGV do
  v = v + 1
  push_event(KEYS[2], KEYS[3], ARGV[i], v, tonumber(ARGV[3]))
end
redis.call('HSET', KEYS[1], 'ev', v)
return {'ok', v, rv, tonumber(redis.call('HGET', KEYS[1], 'active') or '0')}
""")

#: Everything about a room at one instant. A big room's lines and presence
#: are not read (there may be thousands): its counts are.
LOAD: Final = Script("load", """
-- KEYS: 1 room, 2 lb, 3 on, 4 ready
local head = redis.call('HMGET', KEYS[1], 'state', 'rv', 'ev', 'live', 'active', 'big',
                        'players')
if head[6] == '1' then
  return {head, {}, {}, redis.call('SCARD', KEYS[4])}
end
return {head, redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]), 0}
""")

#: A seat's game as stored, with its latest log entries and leaderboard line.
SEAT: Final = Script("seat", """
-- KEYS: 1 seat, 2 log, 3 lb; ARGV: 1 how many recent log entries, 2 seat no
return {redis.call('HMGET', KEYS[1], 'ver', 'seq', 'snap', 'done'),
        redis.call('LRANGE', KEYS[2], -tonumber(ARGV[1]), -1),
        redis.call('HGET', KEYS[3], ARGV[2])}
""")

#: A connection takes a seat; an older connection holding it is told to close.
#: In a big room presence is not announced (an empty event body).
ATTACH: Final = Script("attach", _PUSH_EVENT + """
-- KEYS: 1 room, 2 on, 3 ev, 4 channel; ARGV: 1 seat, 2 connection id, 3 event body, 4 cap
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local prev = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if prev then
  publish(KEYS[4], '{"x":"takeover","seat":' .. ARGV[1] .. ',"conn":"' .. ARGV[2] .. '"}')
  return {'ok', 0}
end
if ARGV[3] == '' then return {'ok', 0} end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[3], KEYS[4], ARGV[3], v, tonumber(ARGV[4]))
return {'ok', v}
""")

#: A connection lets go of its seat (only if it still holds it).
DETACH: Final = Script("detach", _PUSH_EVENT + """
-- KEYS: 1 room, 2 on, 3 ev, 4 channel; ARGV: 1 seat, 2 connection id, 3 event body, 4 cap
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return {'ok', 0} end
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
if ARGV[3] == '' then return {'ok', 0} end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[3], KEYS[4], ARGV[3], v, tonumber(ARGV[4]))
return {'ok', v}
""")

#: The events after a version, or 'resync' when they are no longer kept.
SINCE: Final = Script("since", """
-- KEYS: 1 room, 2 ev; ARGV: 1 last version the client has
local v = tonumber(redis.call('HGET', KEYS[1], 'ev') or '0')
local since = tonumber(ARGV[1])
if since == v then return {v, {}} end
local missing = v - since
if since > v or missing > redis.call('LLEN', KEYS[2]) then return {v, 'resync'} end
return {v, redis.call('LRANGE', KEYS[2], -missing, -1)}
""")

#: Stop accepting moves in a race and return the final leaderboard lines
#: (a big room's are read a page at a time: none here).
STOP: Final = Script("stop", """
-- KEYS: 1 room, 2 lb; ARGV: 1 race, 2 '1' to return the lines
if redis.call('HGET', KEYS[1], 'live') == ARGV[1] then redis.call('HSET', KEYS[1], 'live', '0') end
if ARGV[2] ~= '1' then return {} end
return redis.call('HGETALL', KEYS[2])
""")

#: Rooms whose deadline has come, leased for a while to whoever asked.
CLAIM_DUE: Final = Script("claim_due", """
-- KEYS: 1 due; ARGV: 1 now ms, 2 lease ms, 3 limit
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
end
return ids
""")

#: Count a creation from one address over the last minute (a rolling
#: window), and the places its creations of this kind hold now; if it may
#: create (under its rate and its share), keep a place for this creation
#: until it is made (or the window ends: a creation that failed).
CREATION: Final = Script("creation", """
-- KEYS: 1 the address's creations (zset: id -> ms), 2 the places its creations of this kind
--       hold (zset: id -> until when, ms)
-- ARGV: 1 now ms, 2 the window ms, 3 a unique id for this creation, 4 creations an address
--       may make in the window, 5 places an address may hold
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
local made = redis.call('ZCARD', KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local held = redis.call('ZCARD', KEYS[2])
local kept = 0
if made <= tonumber(ARGV[4]) and held < tonumber(ARGV[5]) then
  redis.call('ZADD', KEYS[2], now + window, ARGV[3])
  kept = 1
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[2], last[2]) end
return {made, held, kept}
""")

#: A place held by a room or tournament made from an address, until a time
#: (never shortened), instead of the reservation its creation kept.
HOLD: Final = Script("hold", """
-- KEYS: 1 the places an address holds; ARGV: 1 id, 2 until when (ms), 3 a reservation ('')
if ARGV[3] ~= '' then redis.call('ZREM', KEYS[1], ARGV[3]) end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return 1
""")

#: A room or tournament remembers the address it was made from (if it still exists).
MADE_BY: Final = Script("made_by", """
-- KEYS: 1 a room's or tournament's document (hash); ARGV: 1 the address
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'by', ARGV[1]) end
return 1
""")

#: One more in a rolling window, unless it holds its most already (0: count
#: only): how many it holds, and whether this one was added.
WINDOW: Final = Script("window", """
-- KEYS: 1 a rolling window (zset: id -> ms); ARGV: 1 now ms, 2 the window ms, 3 an id to
--       add, 4 the most it may hold ('': no most; 0: add nothing, count)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local n = redis.call('ZCARD', KEYS[1])
if ARGV[4] ~= '' and n >= tonumber(ARGV[4]) then return {n, 0} end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {n + 1, 1}
""")

#: How many documents an index of live ones (or one shard of it) holds now.
LIVE_COUNT: Final = Script("live_count", """
-- KEYS: 1 a live index (zset: id -> until when, ms); ARGV: 1 now ms
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
""")

# ---------------------------------------------------------------------- big rooms

#: A player takes a seat in a big room: a free nickname, room left, the
#: room's phase (a race running admits only when the room says so, as a
#: racer on a clock of their own). ``small`` for a room that is not big.
JOIN: Final = Script("join", _KEEP + _MEMBER + """
-- KEYS: 1 room, 2 pl, 3 nk, 4 tk, 5 lb, 6 rank, 7 hist
-- ARGV: 1 folded nickname, 2 player JSON {nickname, fold, token}, 3 token digest,
--       4 lobby line's tail, 5 its score, 6 late racer line's tail, 7 its score,
--       8 nickname as JSON
local head = redis.call('HMGET', KEYS[1], 'big', 'phase', 'live', 'players', 'max', 'late')
if not head[1] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
  return {'small'}
end
local phase, live = head[2], head[3]
if phase == 'racing' and head[6] ~= 'admit' then return {'race_started'} end
if tonumber(head[4] or '0') >= tonumber(head[5]) then return {'full'} end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return {'name_taken'} end
local seat = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('HSET', KEYS[3], ARGV[1], seat)
redis.call('HSET', KEYS[2], seat, ARGV[2])
redis.call('HSET', KEYS[4], ARGV[3], seat)
redis.call('HINCRBY', KEYS[1], 'players', 1)
if phase == 'lobby' then
  redis.call('HSET', KEYS[5], seat, '{"seat":' .. seat .. ',"nickname":' .. ARGV[8] .. ARGV[4])
  redis.call('ZADD', KEYS[6], ARGV[5], member(seat))
elseif phase == 'racing' then
  -- ranked in the race (its seat is made by its first command)
  redis.call('HSET', KEYS[5], seat, '{"seat":' .. seat .. ',"nickname":' .. ARGV[8] .. ARGV[6])
  redis.call('ZADD', KEYS[6], ARGV[7], member(seat))
  redis.call('HINCRBY', KEYS[1], 'active', 1)
  redis.call('HINCRBY', KEYS[7], '0', 1)
  redis.call('HINCRBY', KEYS[7], 's:racing', 1)
end  -- ended: seated for the next race
return {'ok', seat, phase, live or '0'}
""")

#: A player leaves a big room: out of the lobby (or the room between races),
#: or, during a race, marked left in it (kept for its results; gone at the
#: rematch). Returns the seat that becomes host when the host left.
LEAVE: Final = Script("leave", _KEEP + _MEMBER + """
-- KEYS: 1 room, 2 pl, 3 nk, 4 tk, 5 lb, 6 rank, 7 hist, 8 on, 9 ready, 10 left, 11 seat
-- ARGV: 1 seat, 2 the line if the race goes on without them ('' if not racing), 3 its
--       score, 4 their status before, 5 host seat, 6 '1' to kick (not during a race; a
--       notice closes their connection), 'r' a tournament's kick (out of its round's race
--       too), '0' to leave, 7 channel
local record = redis.call('HGET', KEYS[2], ARGV[1])
if not record or redis.call('SISMEMBER', KEYS[10], ARGV[1]) == 1 then return {'unknown'} end
local phase = redis.call('HGET', KEYS[1], 'phase')
if ARGV[6] == '1' and phase == 'racing' then return {'racing'} end
local player = cjson.decode(record)
redis.call('HDEL', KEYS[4], player.token)
redis.call('HDEL', KEYS[8], ARGV[1])
redis.call('HDEL', KEYS[3], player.fold)
redis.call('SREM', KEYS[9], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'players', -1)
local active = -1
-- from a race or its results, a player is marked left (their line stays until the rematch)
local marked = phase ~= 'lobby'
-- racing: a seat in the race (made by a first command, or not yet: ranked in it)
local racing = phase == 'racing' and (redis.call('EXISTS', KEYS[11]) == 1
  or redis.call('ZSCORE', KEYS[6], member(ARGV[1])) ~= false)
if marked then
  redis.call('SADD', KEYS[10], ARGV[1])
  keep(KEYS[10], KEYS[1])
  if racing and ARGV[2] ~= '' and redis.call('HGET', KEYS[11], 'done') ~= '1' then
    redis.call('HSET', KEYS[5], ARGV[1], ARGV[2])
    redis.call('ZADD', KEYS[6], ARGV[3], member(ARGV[1]))
    redis.call('HSET', KEYS[11], 'done', 1)
    keep(KEYS[11], KEYS[1])
    redis.call('HINCRBY', KEYS[7], 's:' .. ARGV[4], -1)
    redis.call('HINCRBY', KEYS[7], 's:left', 1)
    active = redis.call('HINCRBY', KEYS[1], 'active', -1)
  end
else
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[1])
  redis.call('ZREM', KEYS[6], member(ARGV[1]))
end
if ARGV[6] ~= '0' then
  publish(ARGV[7], '{"x":"kicked","seat":' .. ARGV[1] .. '}')
end
local host = -1
if ARGV[1] == ARGV[5] then  -- the next player in seat order is host
  for _, seat in ipairs(redis.call('HKEYS', KEYS[2])) do
    local n = tonumber(seat)
    if (host < 0 or n < host) and redis.call('SISMEMBER', KEYS[10], seat) == 0 then host = n end
  end
end
return {racing and 'left_race' or 'left', active, host}
""")

#: A seat's ready flag in a big room's lobby (counted, not announced).
READY: Final = Script("ready", _KEEP + """
-- KEYS: 1 room, 2 ready, 3 pl; ARGV: 1 seat, 2 '1' ready or '0'
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then return -1 end
if ARGV[2] == '1' then redis.call('SADD', KEYS[2], ARGV[1]) else redis.call('SREM', KEYS[2], ARGV[1]) end
keep(KEYS[2], KEYS[1])
return redis.call('SCARD', KEYS[2])
""")

#: A big room's leaderboard tick, built once per room and tick by whichever
#: process asks first: the top lines, which of them are offline, the field's
#: progress, how many in the lobby are ready; published (and kept for
#: newcomers) only when it changed.
TICK: Final = Script("tick", _MEMBER + """
-- KEYS: 1 room, 2 rank, 3 lb, 4 hist, 5 on, 6 top, 7 channel, 8 ready; ARGV: 1 tick, 2 lines
local last = redis.call('HGET', KEYS[1], 'tick')
if last and tonumber(last) >= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'tick', ARGV[1])
local members = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1)
local lines, off = {}, {}
if #members > 0 then
  local seats = {}
  for i, m in ipairs(members) do seats[i] = tostring(tonumber(m)) end
  for _, line in ipairs(redis.call('HMGET', KEYS[3], unpack(seats))) do
    if line then lines[#lines + 1] = line end
  end
  for i, conn in ipairs(redis.call('HMGET', KEYS[5], unpack(seats))) do
    if not conn then off[#off + 1] = seats[i] end
  end
end
local counts, status = {}, {}
for i = 1, 53 do counts[i] = 0 end
local h = redis.call('HGETALL', KEYS[4])
for i = 1, #h, 2 do
  local f = tonumber(h[i])
  if f then counts[f + 1] = tonumber(h[i + 1])
  else status[#status + 1] = '"' .. string.sub(h[i], 3) .. '":' .. h[i + 1] end
end
local body = '"n":' .. redis.call('ZCARD', KEYS[2]) .. ',"top":[' .. table.concat(lines, ',') ..
  '],"off":[' .. table.concat(off, ',') .. '],"hist":[' .. table.concat(counts, ',') ..
  '],"status":{' .. table.concat(status, ',') .. '},"ready":' .. redis.call('SCARD', KEYS[8]) .. '}'
if redis.call('GET', KEYS[6]) == body then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[6], body, 'PX', ttl) else redis.call('SET', KEYS[6], body) end
publish(KEYS[7], '{"x":"top","tick":' .. ARGV[1] .. ',' .. body)
return 1
""")

#: Each seat's place as JSON members, ready to send (``"rank":R,"of":N,
#: "above":LINE,"line":LINE,"below":LINE``, null where there is no line);
#: false for a seat not ranked.
NEAR: Final = Script("near", _MEMBER + """
-- KEYS: 1 rank, 2 lb; ARGV: seats
-- (the lines wanted are read in one HMGET, not three per seat)
local found, want, ids = {}, {}, {}
local of = ',"of":' .. redis.call('ZCARD', KEYS[1])
for i, seat in ipairs(ARGV) do
  local r = redis.call('ZRANK', KEYS[1], member(seat))
  if r then
    local near = redis.call('ZRANGE', KEYS[1], math.max(r - 1, 0), r + 1)
    if r == 0 then table.insert(near, 1, false) end
    found[i] = {r, near}
    for j = 1, 3 do
      local m = near[j]
      if m and not want[m] then want[m] = true; ids[#ids + 1] = m end
    end
  end
end
local line = {}
if #ids > 0 then
  local seats = {}
  for j, m in ipairs(ids) do seats[j] = tostring(tonumber(m)) end
  local got = redis.call('HMGET', KEYS[2], unpack(seats))
  for j, m in ipairs(ids) do line[m] = got[j] end
end
local out = {}
for i = 1, #ARGV do
  local f = found[i]
  if f then
    local near = f[2]
    out[i] = '"rank":' .. (f[1] + 1) .. of ..
      ',"above":' .. (near[1] and line[near[1]] or 'null') ..
      ',"line":' .. (line[near[2]] or 'null') ..
      ',"below":' .. (near[3] and line[near[3]] or 'null')
  else
    out[i] = false
  end
end
return out
""")

#: A page of a big room's ranking: the lines from rank ``from`` on.
PAGE: Final = Script("page", """
-- KEYS: 1 rank, 2 lb; ARGV: 1 from (1..), 2 how many
local first = tonumber(ARGV[1]) - 1
local members = redis.call('ZRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1)
local lines = {}
if #members > 0 then
  local seats = {}
  for i, m in ipairs(members) do seats[i] = tostring(tonumber(m)) end
  lines = redis.call('HMGET', KEYS[2], unpack(seats))
end
return {redis.call('ZCARD', KEYS[1]), lines}
""")

#: A nickname's seat and rank in a big room (``false`` when nobody has it).
FIND: Final = Script("find", _MEMBER + """
-- KEYS: 1 nk, 2 rank, 3 lb; ARGV: 1 folded nickname
local seat = redis.call('HGET', KEYS[1], ARGV[1])
if not seat then return false end
local r = redis.call('ZRANK', KEYS[2], member(seat))
return {tonumber(seat), r and r + 1 or 0, redis.call('HGET', KEYS[3], seat) or false}
""")

# ---------------------------------------------------------------------- big tournaments
#
# A big tournament's players and standings are hashes and a sorted set under
# its own hash tag (see :mod:`.keys`); its rounds are big rooms, under theirs.
# No script touches both: a step that concerns both (seating a player in a
# round, taking one out of it) is two calls, each idempotent, the
# tournament's first.

#: A player registers in a big tournament: registration open, room left, a
#: nickname neither taken nor banned. Their standing line starts with the
#: rounds already started counted as missed: the caller passes one line tail
#: and score for each first round a player may have.
T_REGISTER: Final = Script("t_register", _MEMBER + """
-- KEYS: 1 t, 2 pl, 3 nk, 4 tk, 5 st, 6 rank, 7 ban, 8 ev
-- ARGV: 1 folded nickname, 2 player record JSON up to its first round ('..."first":'),
--       3 token digest, 4 nickname as JSON, 5 ttl ms, then for the first round f = 1, 2...:
--       4 + 2f the standing line's tail, 5 + 2f its score
local head = redis.call('HMGET', KEYS[1], 'big', 'reg', 'players', 'max', 'first')
if not head[1] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
  return {'small'}
end
-- a ban is said first: it outlasts whatever else would refuse the name now
if redis.call('SISMEMBER', KEYS[7], ARGV[1]) == 1 then return {'banned'} end
local first = tonumber(head[5] or '1')
if head[2] ~= '1' or not ARGV[5 + 2 * first] then return {'closed'} end
if tonumber(head[3] or '0') >= tonumber(head[4]) then return {'full'} end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return {'name_taken'} end
local player = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('HINCRBY', KEYS[1], 'players', 1)
redis.call('HINCRBY', KEYS[1], 'in' .. first, 1)
redis.call('HSET', KEYS[3], ARGV[1], player)
redis.call('HSET', KEYS[4], ARGV[3], player)
redis.call('HSET', KEYS[2], player, ARGV[2] .. first .. '}')
redis.call('HSET', KEYS[5], player, '{"player":' .. player .. ',"nickname":' .. ARGV[4] ..
           ARGV[4 + 2 * first])
redis.call('ZADD', KEYS[6], ARGV[5 + 2 * first], member(player))
for i = 1, 8 do
  if i ~= 7 then redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
end
return {'ok', player, first}
""")

#: Whose token this is, their record and whether they are out, and how many
#: players may play round ``n`` (those whose first round is ``n`` or before:
#: players 0 to that count - 1, since a round's start sets the first round
#: of those registering after it).
T_PLAYER: Final = Script("t_player", """
-- KEYS: 1 t, 2 tk, 3 pl, 4 out; ARGV: 1 token digest, 2 round n
local player = redis.call('HGET', KEYS[2], ARGV[1])
if not player then return false end
local fields = {}
for f = 1, tonumber(ARGV[2]) do fields[f] = 'in' .. f end
local open = 0
for _, count in ipairs(redis.call('HMGET', KEYS[1], unpack(fields))) do
  open = open + tonumber(count or '0')
end
return {tonumber(player), redis.call('HGET', KEYS[3], player),
        redis.call('HGET', KEYS[4], player) or '', open}
""")

#: A player of a big tournament withdraws (by their token) or is kicked (by
#: their number, ``ban`` keeping their folded nickname out from then on). A
#: withdrawn player stays in the standings, marked; a kicked one leaves them
#: and their token stops working.
T_OUT: Final = Script("t_out", _MEMBER + _KEEP + """
-- KEYS: 1 t, 2 pl, 3 tk, 4 nk, 5 st, 6 rank, 7 out, 8 ban
-- ARGV: 1 player ('' to find them by token), 2 token digest, 3 'withdrawn' or 'kicked',
--       4 '1' to ban their nickname
local player = ARGV[1]
if player == '' then
  player = redis.call('HGET', KEYS[3], ARGV[2])
  if not player then return {'unknown'} end
end
local record = redis.call('HGET', KEYS[2], player)
local was = redis.call('HGET', KEYS[7], player)
if not record or was == 'kicked' then return {'unknown'} end
local rec = cjson.decode(record)
if ARGV[3] == 'withdrawn' then
  if was then return {'already', player} end
  local line = redis.call('HGET', KEYS[5], player)
  if line then redis.call('HSET', KEYS[5], player, string.sub(line, 1, -2) .. ',"withdrawn":true}') end
  redis.call('HINCRBY', KEYS[1], 'withdrawn', 1)
else
  redis.call('HDEL', KEYS[3], rec.token)
  redis.call('HDEL', KEYS[5], player)
  redis.call('ZREM', KEYS[6], member(player))
  redis.call('HINCRBY', KEYS[1], 'kicked', 1)
  redis.call('HINCRBY', KEYS[1], 'players', -1)
  if was == 'withdrawn' then redis.call('HINCRBY', KEYS[1], 'withdrawn', -1) end
  if ARGV[4] == '1' then
    redis.call('SADD', KEYS[8], rec.fold)
    keep(KEYS[8], KEYS[1])
  else
    redis.call('HDEL', KEYS[4], rec.fold)
  end
end
redis.call('HSET', KEYS[7], player, ARGV[3])
keep(KEYS[7], KEYS[1])
return {'ok', player}
""")

#: Write standing lines that have not changed since the caller read them:
#: each new line (with its score) replaces the old one only if the stored
#: line is still that old one. Returns the players whose line had changed
#: (read them again); a line gone (a kicked player) is left alone.
T_COUNT: Final = Script("t_count", _MEMBER + """
-- KEYS: 1 st, 2 rank; ARGV: for each player: player, old line, new line, score
local changed = {}
for i = 1, #ARGV, 4 do
  local line = redis.call('HGET', KEYS[1], ARGV[i])
  if line == ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
    redis.call('ZADD', KEYS[2], ARGV[i + 3], member(ARGV[i]))
  elseif line then
    changed[#changed + 1] = ARGV[i]
  end
end
return changed
""")

#: A tournament's player takes their seat in a big round's room (seat =
#: player number) the first time they come, racing on the round's clock. The
#: room counted them among its racers (``active``) when it was created.
#: ``out`` when the seat was closed to them (they withdrew or were kicked
#: before they came), ``ended`` once the round's race is over.
ROUND_SEAT: Final = Script("round_seat", _KEEP + _MEMBER + """
-- KEYS: 1 room, 2 pl, 3 nk, 4 tk, 5 lb, 6 rank, 7 hist, 8 seat
-- ARGV: 1 seat, 2 player JSON {nickname, fold, token}, 3 folded nickname, 4 token digest,
--       5 line JSON, 6 its score, 7 race
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[7] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
  return 'ended'
end
if redis.call('EXISTS', KEYS[8]) == 1 then
  if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'ok' end
  return 'out'
end
redis.call('HSET', KEYS[8], 'ver', 0, 'seq', 0, 'done', 0)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
redis.call('ZADD', KEYS[6], ARGV[6], member(ARGV[1]))
redis.call('HINCRBY', KEYS[1], 'players', 1)
redis.call('HINCRBY', KEYS[7], '0', 1)
redis.call('HINCRBY', KEYS[7], 's:racing', 1)
for i = 2, 8 do keep(KEYS[i], KEYS[1]) end
return 'ok'
""")

#: A player who may play a big round will not (they withdrew or were
#: kicked): a seat they never took is closed (and counted out of the race's
#: racers, once); a seat taken is the caller's to leave (``seated``).
ROUND_OUT: Final = Script("round_out", _KEEP + """
-- KEYS: 1 room, 2 pl, 3 seat; ARGV: 1 seat, 2 race
if redis.call('EXISTS', KEYS[3]) == 1 then
  if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'seated', -1} end
  return {'out', -1}
end
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[2] then return {'out', -1} end
redis.call('HSET', KEYS[3], 'ver', 0, 'seq', 0, 'done', 1)
keep(KEYS[3], KEYS[1])
return {'out', redis.call('HINCRBY', KEYS[1], 'active', -1)}
""")

#: Give back a lease only if this holder still has it: one whose lease ran
#: out while it worked must not delete the next holder's.
RELEASE: Final = Script("release", """
-- KEYS: 1 the lease; ARGV: 1 holder
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
""")

ALL: Final = (MOVE, COMMIT, LOAD, SEAT, ATTACH, DETACH, SINCE, STOP, CLAIM_DUE, CREATION, HOLD,
              MADE_BY, WINDOW, LIVE_COUNT,
              JOIN, LEAVE, READY, TICK, NEAR, PAGE, FIND, T_REGISTER, T_PLAYER, T_OUT, T_COUNT,
              ROUND_SEAT, ROUND_OUT, RELEASE)
