-- quick: the quick race of a mode a player is sent to. The mode's current
-- room is offered while it has a seat left (by this count) and has not
-- closed (its second player came more than the wait less a margin ago);
-- otherwise the caller's fresh room id becomes the current one, which the
-- caller then creates. One key per mode, so two players asking at once on
-- two processes are sent to the same room.
--
-- KEYS: 1 the mode's quick race (hash: room, seats, closes ms or 0)
-- ARGV: 1 now ms, 2 a fresh room id, 3 a room to pass over ('' none: the
--       caller found it full, started or gone), 4 seats, 5 the offer lasts
--       this long after the second player (ms), 6 ttl ms of the key
-- Returns {'join', room} or {'open', the fresh id}
local now = tonumber(ARGV[1])
local room = redis.call('HGET', KEYS[1], 'room')
if room and room ~= ARGV[3] then
  local seats = tonumber(redis.call('HGET', KEYS[1], 'seats') or '0')
  local closes = tonumber(redis.call('HGET', KEYS[1], 'closes') or '0')
  if seats < tonumber(ARGV[4]) and (closes == 0 or now < closes) then
    seats = seats + 1
    redis.call('HSET', KEYS[1], 'seats', seats)
    if seats == 2 then redis.call('HSET', KEYS[1], 'closes', now + tonumber(ARGV[5])) end
    redis.call('PEXPIRE', KEYS[1], ARGV[6])
    return {'join', room}
  end
end
redis.call('HSET', KEYS[1], 'room', ARGV[2], 'seats', 1, 'closes', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {'open', ARGV[2]}
