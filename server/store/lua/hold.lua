-- hold: a place held by a room or tournament made from an address, until a
-- time (never shortened), instead of the reservation its creation kept.
--
-- KEYS: 1 the places an address holds (zset: id -> until when, ms)
-- ARGV: 1 the room's or tournament's id, 2 until when (ms), 3 a reservation to drop ('')
-- Returns 1
if ARGV[3] ~= '' then redis.call('ZREM', KEYS[1], ARGV[3]) end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return 1
