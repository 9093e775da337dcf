-- quick: the quick race of a mode a player is sent to, by rating. Each
-- open quick race of the mode has a line in the mode's hash (its seats
-- counted as sent, when its offer closes (ms, 0: not yet), when it opened,
-- its opener's rating) and in two sorted sets: by rating, and by opening.
-- A race accepts a player whose rating is within its window of its own:
-- BASE wide when it opens, WIDEN more each second it has been open, anyone
-- once it has been open MAXWAIT (so nobody waits longer than that alone
-- while another is queued). The player is sent to the accepting race
-- nearest their rating (the oldest on a tie); with none, the caller's fresh
-- room id becomes a new open race, which the caller then creates. One hash
-- tag per mode: players asking at once on two processes are served in turn.
--
-- KEYS: 1 the mode's races (hash: room -> "seats closes opened rating"),
--       2 by rating (zset), 3 by opening (zset)
-- ARGV: 1 now ms, 2 a fresh room id, 3 a room to pass over ('' none), 4 seats,
--       5 the offer lasts this long after the second player (ms), 6 ttl ms of
--       the keys, 7 the player's rating, 8 BASE, 9 WIDEN (per second),
--       10 MAXWAIT ms
-- Returns {'join', room} or {'open', the fresh id}
local now, seats_max = tonumber(ARGV[1]), tonumber(ARGV[4])
local rating, base, widen, maxwait = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]),
  tonumber(ARGV[10])
local ttl = tonumber(ARGV[6])

local function drop(room)
  redis.call('HDEL', KEYS[1], room)
  redis.call('ZREM', KEYS[2], room)
  redis.call('ZREM', KEYS[3], room)
end

local function parse(room)
  local line = redis.call('HGET', KEYS[1], room)
  if not line then return nil end
  local f = {}
  for w in string.gmatch(line, '%S+') do f[#f + 1] = tonumber(w) end
  return {seats = f[1], closes = f[2], opened = f[3], rating = f[4]}
end

-- lines older than the keys' lifetime: their rooms are gone
for _, room in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - ttl, 'LIMIT', 0, 10)) do
  drop(room)
end

local candidates = {}
local widest = base + widen * maxwait / 1000
for _, room in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], rating - widest, rating + widest,
                                 'LIMIT', 0, 50)) do
  candidates[#candidates + 1] = room
end
for _, room in ipairs(redis.call('ZRANGE', KEYS[3], 0, 4)) do  -- the longest open: any rating
  candidates[#candidates + 1] = room
end

local best, best_gap, best_opened = nil, nil, nil
for _, room in ipairs(candidates) do
  local r = parse(room)
  if r == nil then
    drop(room)
  elseif r.seats >= seats_max or (r.closes > 0 and now >= r.closes) then
    drop(room)  -- full or closing: offered no more
  elseif room ~= ARGV[3] then
    local age = now - r.opened
    local gap = math.abs(rating - r.rating)
    if age >= maxwait or gap <= base + widen * age / 1000 then
      if best == nil or gap < best_gap or (gap == best_gap and r.opened < best_opened) then
        best, best_gap, best_opened = room, gap, r.opened
      end
    end
  end
end

if best then
  local r = parse(best)
  local seats = r.seats + 1
  local closes = r.closes
  if seats == 2 then closes = now + tonumber(ARGV[5]) end
  redis.call('HSET', KEYS[1], best, seats .. ' ' .. closes .. ' ' .. r.opened .. ' ' .. r.rating)
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
  return {'join', best}
end
redis.call('HSET', KEYS[1], ARGV[2], '1 0 ' .. now .. ' ' .. rating)
redis.call('ZADD', KEYS[2], rating, ARGV[2])
redis.call('ZADD', KEYS[3], now, ARGV[2])
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
return {'open', ARGV[2]}
