-- hold: a place held by a room, tournament or challenge made from an address,
-- until a time (never shortened), instead of the reservation its creation kept;
-- with a cap (a challenge's: open for days), only while the address holds
-- fewer places than that (those passed are dropped first).
--
-- KEYS: 1 the places an address holds (zset: id -> until when, ms)
-- ARGV: 1 the place's id, 2 until when (ms), 3 a reservation to drop (''),
--       4 now ms and 5 the most places it may hold ('' and '': no cap)
-- Returns 1 (held) or 0 (the address holds the cap already: nothing changed)
if ARGV[5] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5])
      and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
  end
end
if ARGV[3] ~= '' then redis.call('ZREM', KEYS[1], ARGV[3]) end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return 1
