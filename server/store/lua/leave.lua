-- leave: a player leaves a room whose seats live in hashes: out of the lobby
-- (or of the room between races), or, during a race, marked left in it (kept
-- for its results; gone at the rematch). When the host left, the next player
-- in seat order becomes host.
--
-- KEYS: 1 room, 2 pl, 3 nk, 4 tk, 5 lb, 6 rank, 7 hist, 8 on, 9 ready, 10 left, 11 seat,
--       12 channel
-- ARGV: 1 seat, 2 the line if the race goes on without them ('' if not racing), 3 its
--       score, 4 their status before, 5 host seat, 6 '1' to kick (not during a race; a
--       notice closes their connection), 'r' a tournament's kick (out of its round's race
--       too), '0' to leave, 7 '1' if they never began their game of a challenge (gone,
--       as from a lobby)
-- Returns {'left' or 'left_race', seats still racing or -1, new host or -1},
-- or {'unknown'}, {'racing'} (no kick during a race)
-- uses: keep, member
local record = redis.call('HGET', KEYS[2], ARGV[1])
if not record or redis.call('SISMEMBER', KEYS[10], ARGV[1]) == 1 then return {'unknown'} end
local phase = redis.call('HGET', KEYS[1], 'phase')
if ARGV[6] == '1' and phase == 'racing' then return {'racing'} end
local player = cjson.decode(record)
redis.call('HDEL', KEYS[4], player.token)
redis.call('HDEL', KEYS[8], ARGV[1])
redis.call('HDEL', KEYS[3], player.fold)
redis.call('SREM', KEYS[9], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'players', -1)
local active = -1
-- from a race or its results, a player is marked left (their line stays until the rematch)
local marked = phase ~= 'lobby' and ARGV[7] ~= '1'
-- racing: a seat in the race (made by a first command, or not yet: ranked in it)
local racing = phase == 'racing' and ARGV[7] ~= '1' and (redis.call('EXISTS', KEYS[11]) == 1
  or redis.call('ZSCORE', KEYS[6], member(ARGV[1])) ~= false)
if marked then
  redis.call('SADD', KEYS[10], ARGV[1])
  keep(KEYS[10], KEYS[1])
  if racing and ARGV[2] ~= '' and redis.call('HGET', KEYS[11], 'done') ~= '1' then
    redis.call('HSET', KEYS[5], ARGV[1], ARGV[2])
    redis.call('ZADD', KEYS[6], ARGV[3], member(ARGV[1]))
    redis.call('HSET', KEYS[11], 'done', 1)
    keep(KEYS[11], KEYS[1])
    redis.call('HINCRBY', KEYS[7], 's:' .. ARGV[4], -1)
    redis.call('HINCRBY', KEYS[7], 's:left', 1)
    active = redis.call('HINCRBY', KEYS[1], 'active', -1)
  end
else
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[1])
  redis.call('ZREM', KEYS[6], member(ARGV[1]))
end
if ARGV[6] ~= '0' then
  publish(KEYS[12], '{"x":"kicked","seat":' .. ARGV[1] .. '}')
end
local host = -1
if ARGV[1] == ARGV[5] then  -- the next player in seat order is host
  for _, seat in ipairs(redis.call('HKEYS', KEYS[2])) do
    local n = tonumber(seat)
    if (host < 0 or n < host) and redis.call('SISMEMBER', KEYS[10], seat) == 0 then host = n end
  end
end
return {racing and 'left_race' or 'left', active, host}
