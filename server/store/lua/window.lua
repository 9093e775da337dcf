-- window: one more in a rolling window, unless it holds its most already (a
-- refusal adds nothing: the window never holds more than its most).
--
-- KEYS: 1 a rolling window (zset: id -> ms)
-- ARGV: 1 now ms, 2 the window ms, 3 an id to add, 4 the most it may hold (0: add
--       nothing, count)
-- Returns {how many it holds, 1 if this one was added}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[4]) then return {n, 0} end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {n + 1, 1}
