-- stop: no more moves in a race; the final leaderboard lines, when asked
-- (a room whose seats live in hashes reads its ranking a page at a time).
--
-- KEYS: 1 room, 2 lb
-- ARGV: 1 race, 2 '1' to return the lines
-- Returns the lines, flat (seat, line, ...), or {}
if redis.call('HGET', KEYS[1], 'live') == ARGV[1] then redis.call('HSET', KEYS[1], 'live', '0') end
if ARGV[2] ~= '1' then return {} end
return redis.call('HGETALL', KEYS[2])
