-- tick: a ranked room's shared leaderboard for one tick, built once per room
-- and tick by whichever process asks first: the top lines, which of them are
-- offline, the field's progress, how many in the lobby are ready; kept for
-- newcomers and published (a notice {"x":"top","tick":N,...}) only when it changed.
--
-- KEYS: 1 room, 2 rank, 3 lb, 4 hist, 5 on, 6 top, 7 channel, 8 ready
-- ARGV: 1 tick number, 2 how many top lines
-- Returns 1 if this call published the tick, else 0
local last = redis.call('HGET', KEYS[1], 'tick')
if last and tonumber(last) >= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'tick', ARGV[1])
local members = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1)
local lines, off = {}, {}
if #members > 0 then
  local seats = {}
  for i, m in ipairs(members) do seats[i] = tostring(tonumber(m)) end
  for _, line in ipairs(redis.call('HMGET', KEYS[3], unpack(seats))) do
    if line then lines[#lines + 1] = line end
  end
  for i, conn in ipairs(redis.call('HMGET', KEYS[5], unpack(seats))) do
    if not conn then off[#off + 1] = seats[i] end
  end
end
local counts, status = {}, {}
for i = 1, 53 do counts[i] = 0 end
local h = redis.call('HGETALL', KEYS[4])
for i = 1, #h, 2 do
  local f = tonumber(h[i])
  if f then counts[f + 1] = tonumber(h[i + 1])
  else status[#status + 1] = '"' .. string.sub(h[i], 3) .. '":' .. h[i + 1] end
end
local body = '"n":' .. redis.call('ZCARD', KEYS[2]) .. ',"top":[' .. table.concat(lines, ',') ..
  '],"off":[' .. table.concat(off, ',') .. '],"hist":[' .. table.concat(counts, ',') ..
  '],"status":{' .. table.concat(status, ',') .. '},"ready":' .. redis.call('SCARD', KEYS[8]) .. '}'
if redis.call('GET', KEYS[6]) == body then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[6], body, 'PX', ttl) else redis.call('SET', KEYS[6], body) end
publish(KEYS[7], '{"x":"top","tick":' .. ARGV[1] .. ',' .. body)
return 1
