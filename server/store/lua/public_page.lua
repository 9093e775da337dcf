-- public_page: what a lobby's list is made from: the rooms listed waiting
-- last first, with the address that listed each, the races started last
-- first, how many of each are listed, and the race and the waiting room
-- listed longest (a reader checks them, so that what was never unlisted, or
-- waits idle beyond the rooms shown, goes in the end).
--
-- KEYS: 1 waiting, 2 running, 3 who (as list_public's)
-- ARGV: 1 waiting rooms wanted, 2 running rooms wanted
-- Returns {{room, score, ...} waiting, {room, score, ...} running, waiting
--          count, running count, {oldest running room} or {}, {address of each
--          waiting room, in order}, {oldest waiting room, its score} or {}}
local waiting = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local running = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
local who = {}
if #waiting > 0 then
  local rooms = {}
  for i = 1, #waiting, 2 do rooms[#rooms + 1] = waiting[i] end
  who = redis.call('HMGET', KEYS[3], unpack(rooms))
  for i = 1, #who do who[i] = who[i] or '' end
end
return {waiting, running, redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]),
        redis.call('ZRANGE', KEYS[2], 0, 0), who,
        redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')}
