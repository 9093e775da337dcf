-- public_page: what a lobby's list is made from: the rooms waiting longest
-- first, the races started last first, how many of each are listed, and the
-- race listed longest (a reader checks it, so that a race whose end was
-- never unlisted goes in the end).
--
-- KEYS: 1 waiting, 2 running (as list_public's)
-- ARGV: 1 waiting rooms wanted, 2 running rooms wanted
-- Returns {{room, score, ...} waiting, {room, score, ...} running, waiting
--          count, running count, {oldest running room} or {}}
local waiting = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local running = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
return {waiting, running, redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]),
        redis.call('ZRANGE', KEYS[2], 0, 0)}
