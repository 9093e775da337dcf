-- live_count: how many documents an index of live ones (or one shard of it)
-- holds now, pruned of those whose time is up.
--
-- KEYS: 1 a live index (zset: id -> until when, ms)
-- ARGV: 1 now ms
-- Returns the count
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
