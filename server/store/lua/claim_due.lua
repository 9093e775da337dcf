-- claim_due: the ids whose deadline has come, each leased for a while to
-- whoever asked (its score moves past the lease).
--
-- KEYS: 1 a deadline index (or one shard of it: zset id -> ms)
-- ARGV: 1 now ms, 2 lease ms, 3 limit
-- Returns the ids claimed
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
end
return ids
