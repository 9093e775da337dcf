-- creation: count a creation from one address over a rolling window.
--
-- KEYS: 1 the address's creations (zset: id -> ms)
-- ARGV: 1 now ms, 2 the window ms, 3 a unique id for this creation
-- Returns how many creations the window holds, this one included
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
