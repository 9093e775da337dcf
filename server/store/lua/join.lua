-- join: a player takes a seat in a room whose seats live in hashes: the room
-- exists, its phase admits them (a race running admits only when the room
-- says so, as a racer on a clock of their own; a challenge's open window
-- seats them in its lobby, to begin when they choose, and its closed one
-- admits nobody), a seat is free, the nickname too. Not a room event: the
-- room's counts say it. The room's `late` is refuse, admit or wait (a challenge).
--
-- KEYS: 1 room, 2 pl, 3 nk, 4 tk, 5 lb, 6 rank, 7 hist
-- ARGV: 1 folded nickname, 2 player JSON {nickname, fold, token}, 3 token digest,
--       4 lobby line's tail, 5 its score, 6 late racer line's tail, 7 its score,
--       8 nickname as JSON
-- Returns {'ok', seat, phase, live race} or {'gone'}, {'small'} (the room's seats
-- are in its document), {'race_started'}, {'closed'}, {'full'}, {'name_taken'}
-- uses: member
local head = redis.call('HMGET', KEYS[1], 'big', 'phase', 'live', 'players', 'max', 'late')
if not head[1] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
  return {'small'}
end
local phase, live, late = head[2], head[3], head[6]
if phase == 'ended' and late == 'wait' then return {'closed'} end
if phase == 'racing' and late ~= 'admit' and late ~= 'wait' then return {'race_started'} end
if tonumber(head[4] or '0') >= tonumber(head[5]) then return {'full'} end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return {'name_taken'} end
local seat = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('HSET', KEYS[3], ARGV[1], seat)
redis.call('HSET', KEYS[2], seat, ARGV[2])
redis.call('HSET', KEYS[4], ARGV[3], seat)
redis.call('HINCRBY', KEYS[1], 'players', 1)
if phase == 'lobby' or late == 'wait' then
  redis.call('HSET', KEYS[5], seat, '{"seat":' .. seat .. ',"nickname":' .. ARGV[8] .. ARGV[4])
  redis.call('ZADD', KEYS[6], ARGV[5], member(seat))
elseif phase == 'racing' then
  -- ranked in the race (its seat is made by its first command)
  redis.call('HSET', KEYS[5], seat, '{"seat":' .. seat .. ',"nickname":' .. ARGV[8] .. ARGV[6])
  redis.call('ZADD', KEYS[6], ARGV[7], member(seat))
  redis.call('HINCRBY', KEYS[1], 'active', 1)
  redis.call('HINCRBY', KEYS[7], '0', 1)
  redis.call('HINCRBY', KEYS[7], 's:racing', 1)
end  -- ended: seated for the next race
return {'ok', seat, phase, live or '0'}
