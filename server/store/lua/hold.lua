-- hold: a place among the documents one address holds open at once (a
-- challenge, open for days), unless it holds as many as it may.
--
-- KEYS: 1 the address's places (zset: place -> until when, ms)
-- ARGV: 1 now ms, 2 until when this place is held (ms), 3 the cap, 4 the place's id
-- Returns 1 (held) or 0 (the address holds the cap already)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIREAT', KEYS[1], math.max(last, tonumber(ARGV[2])))
return 1
