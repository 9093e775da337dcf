"""The Lua scripts: every state change is one of these, run atomically.

Events are stored and published as JSON objects whose first member is the
version the script gives them: the caller passes the event's body without its
opening brace and the script prepends ``{"v":N,``.

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

#: A game command of a seat: check, append, snapshot, leaderboard, event, publish.
MOVE: Final = Script("move", _PUSH_EVENT + """
-- KEYS: 1 room, 2 seat, 3 log, 4 lb, 5 ev, 6 on, 7 channel
-- ARGV: 1 race, 2 seat no, 3 connection id, 4 expected version, 5 seq, 6 log entry,
--       7 snapshot, 8 lb entry, 9 event body, 10 '1' if the seat is done after it, 11 event cap
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[1] then return {'not_playing'} end
local s = redis.call('HMGET', KEYS[2], 'ver', 'seq', 'done')
-- a seat done is refused first: a player withdrawn from a tournament is out
-- of the round's race ('left') and no longer holds the seat, yet was not taken over
if s[3] == '1' then return {'not_playing'} end
if redis.call('HGET', KEYS[6], ARGV[2]) ~= ARGV[3] then return {'taken_over'} end
if tonumber(ARGV[5]) <= tonumber(s[2]) then return {'seq', s[2], s[1]} end
if s[1] ~= ARGV[4] then return {'version', s[1]} end
if redis.call('RPUSH', KEYS[3], ARGV[6]) == 1 then
  redis.call('PEXPIRE', KEYS[3], redis.call('PTTL', KEYS[2]))
end
redis.call('HSET', KEYS[2], 'ver', tonumber(s[1]) + 1, 'seq', ARGV[5], 'snap', ARGV[7])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[8])
local active = -1
if ARGV[10] == '1' then
  redis.call('HSET', KEYS[2], 'done', '1')
  active = redis.call('HINCRBY', KEYS[1], 'active', -1)
end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[5], KEYS[7], ARGV[9], v, tonumber(ARGV[11]))
return {'ok', v, active}
""")

#: A room change: check the room version, write the state, run the listed
#: writes, record and publish the events.
COMMIT: Final = Script("commit", _PUSH_EVENT + """
-- KEYS: 1 room, 2 ev, 3 channel, 4.. keys named by the ops
-- ARGV: 1 expected room version ('new': the room must not exist), 2 room JSON,
--       3 event cap, 4 ops: JSON array of [command, key index, args...], 5.. event bodies
local rv = redis.call('HGET', KEYS[1], 'rv')
if ARGV[1] == 'new' then
  if rv then return {'conflict', rv} end
  rv = '0'
elseif rv ~= ARGV[1] then
  return {'conflict', rv or 'gone'}
end
rv = tonumber(rv) + 1
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'rv', rv)
for _, op in ipairs(cjson.decode(ARGV[4])) do
  local args = {op[1], KEYS[op[2]]}
  for i = 3, #op do args[#args + 1] = op[i] end
  redis.call(unpack(args))
end
local v = tonumber(redis.call('HGET', KEYS[1], 'ev') or '0')
for i = 5, #ARGV do
  v = v + 1
  push_event(KEYS[2], KEYS[3], ARGV[i], v, tonumber(ARGV[3]))
end
redis.call('HSET', KEYS[1], 'ev', v)
return {'ok', v, rv, tonumber(redis.call('HGET', KEYS[1], 'active') or '0')}
""")

#: Everything about a room at one instant.
LOAD: Final = Script("load", """
-- KEYS: 1 room, 2 lb, 3 on
return {redis.call('HMGET', KEYS[1], 'state', 'rv', 'ev', 'live', 'active'),
        redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3])}
""")

#: A seat's game as stored, with its latest log entries.
SEAT: Final = Script("seat", """
-- KEYS: 1 seat, 2 log; ARGV: 1 how many recent log entries
return {redis.call('HMGET', KEYS[1], 'ver', 'seq', 'snap', 'done'),
        redis.call('LRANGE', KEYS[2], -tonumber(ARGV[1]), -1)}
""")

#: A connection takes a seat; an older connection holding it is told to close.
ATTACH: Final = Script("attach", _PUSH_EVENT + """
-- KEYS: 1 room, 2 on, 3 ev, 4 channel; ARGV: 1 seat, 2 connection id, 3 event body, 4 cap
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local prev = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if prev then
  publish(KEYS[4], '{"x":"takeover","seat":' .. ARGV[1] .. ',"conn":"' .. ARGV[2] .. '"}')
  return {'ok', 0}
end
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

#: Stop accepting moves in a race and return the final leaderboard lines.
STOP: Final = Script("stop", """
-- KEYS: 1 room, 2 lb; ARGV: 1 race
if redis.call('HGET', KEYS[1], 'live') == ARGV[1] then redis.call('HSET', KEYS[1], 'live', '0') end
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

ALL: Final = (MOVE, COMMIT, LOAD, SEAT, ATTACH, DETACH, SINCE, STOP, CLAIM_DUE)
