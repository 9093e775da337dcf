-- creation: count a creation from one address over a rolling window, and the
-- places its creations of this kind hold now; if it may create (under its
-- rate and its share), count it and keep a place for it until it is made (or
-- the window ends: a creation that failed and was not given back). A refused
-- creation is neither counted nor kept: it stores nothing.
--
-- KEYS: 1 the address's creations (zset: id -> ms), 2 the places its creations of this
--       kind hold (zset: id -> until when, ms)
-- ARGV: 1 now ms, 2 the window ms, 3 a unique id for this creation, 4 creations an address
--       may make in the window, 5 places an address may hold
-- Returns {creations in the window (this one included, kept or not), places held, 1 if
--          one was kept}
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local made = redis.call('ZCARD', KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local held = redis.call('ZCARD', KEYS[2])
if made >= tonumber(ARGV[4]) or held >= tonumber(ARGV[5]) then
  return {made + 1, held, 0}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
redis.call('ZADD', KEYS[2], now + window, ARGV[3])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return {made + 1, held, 1}
