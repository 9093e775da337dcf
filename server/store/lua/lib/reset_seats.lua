-- reset_seats: every player of a room whose seats live in hashes gets a fresh
-- line, status lobby or racing (built from the caller's JSON tail), all of the
-- same score; with a race, every one of them is ranked in it (its seat is made
-- by its first command, see move_ranked). Players who left the last race go first.
-- uses: member
local function reset_seats(pl, lb, rank, hist, ready, left, room, tail, score, race, ttl)
  for _, seat in ipairs(redis.call('SMEMBERS', left)) do redis.call('HDEL', pl, seat) end
  redis.call('DEL', left, lb, rank, hist, ready)
  local all = redis.call('HGETALL', pl)
  local count = 0
  for i = 1, #all, 2 do
    local seat = all[i]
    local name = cjson.encode(cjson.decode(all[i + 1]).nickname)
    redis.call('HSET', lb, seat, '{"seat":' .. seat .. ',"nickname":' .. name .. tail)
    redis.call('ZADD', rank, score, member(seat))
    count = count + 1
  end
  if race ~= '0' then
    redis.call('HSET', hist, '0', count, 's:racing', count)
    redis.call('HSET', room, 'live', race, 'active', count)
  else
    redis.call('HSET', room, 'live', 0, 'active', 0)
  end
  redis.call('HSET', room, 'players', count)
  for _, key in ipairs({lb, rank, hist}) do redis.call('PEXPIRE', key, ttl) end
end
