-- quick_left: a player left a quick race's room before its start (or the
-- room was never made): its seat is offered again, and with fewer than two
-- the offer no longer closes.
--
-- KEYS: 1 the mode's quick race (as quick's)
-- ARGV: 1 the room, 2 '1': forget the room altogether (it was never made)
-- Returns the seats counted now (0 if the room is not the current one)
if redis.call('HGET', KEYS[1], 'room') ~= ARGV[1] then return 0 end
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[1])
  return 0
end
local seats = redis.call('HINCRBY', KEYS[1], 'seats', -1)
if seats < 2 then redis.call('HSET', KEYS[1], 'closes', 0) end
if seats < 0 then redis.call('HSET', KEYS[1], 'seats', 0) end
return math.max(seats, 0)
