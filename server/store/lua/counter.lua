-- counter: one more in a fixed window (a period: an address's day), unless it
-- holds its most already (a refusal adds nothing). One integer per address and
-- period, whatever the count: no entry per attempt.
--
-- KEYS: 1 the counter (string: an integer)
-- ARGV: 1 the most it may hold, 2 ms left of the period (the key goes then)
-- Returns {how many it holds, 1 if this one was counted}
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return {n, 0} end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {n, 1}
