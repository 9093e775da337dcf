-- load: everything about a room at one instant. A room whose seats live in
-- hashes has thousands of lines and holders: they are not read, its counts are.
--
-- KEYS: 1 room, 2 lb, 3 on, 4 ready
-- ARGV: none
-- Returns {head, lines, holders, ready count}: head is the room hash's
-- state, rv, ev, live, active, big, players; lines and holders flat
-- (seat, value, ...), empty for a room whose seats live in hashes.
local head = redis.call('HMGET', KEYS[1], 'state', 'rv', 'ev', 'live', 'active', 'big',
                        'players')
if head[6] == '1' then
  return {head, {}, {}, redis.call('SCARD', KEYS[4])}
end
return {head, redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]), 0}
