-- quick_left: a player left an open quick race's room before its start (or
-- the room was never made): its seat is offered again, and with fewer than
-- two the offer no longer closes.
--
-- KEYS: 1-3 the mode's races (as quick's)
-- ARGV: 1 the room, 2 '1': forget the room altogether (it was never made)
-- Returns the seats counted now (0 if the room is not open)
local line = redis.call('HGET', KEYS[1], ARGV[1])
if not line then return 0 end
if ARGV[2] == '1' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 0
end
local f = {}
for w in string.gmatch(line, '%S+') do f[#f + 1] = w end
local seats = math.max(tonumber(f[1]) - 1, 0)
local closes = f[2]
if seats < 2 then closes = '0' end
redis.call('HSET', KEYS[1], ARGV[1], seats .. ' ' .. closes .. ' ' .. f[3] .. ' ' .. f[4])
return seats
