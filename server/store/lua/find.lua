-- find: a nickname's number, rank and line in a ranking.
--
-- KEYS: 1 nicknames (hash: folded nickname -> number), 2 rank (zset), 3 lines (hash)
-- ARGV: 1 folded nickname
-- Returns {number, rank (0: not ranked), line or false}, or false when nobody has it
-- uses: member
local seat = redis.call('HGET', KEYS[1], ARGV[1])
if not seat then return false end
local r = redis.call('ZRANK', KEYS[2], member(seat))
return {tonumber(seat), r and r + 1 or 0, redis.call('HGET', KEYS[3], seat) or false}
