-- ghosts: a challenge's ghosts a process keeps at hand: how many there are,
-- and those at the given places (0 is the best ranked), each as its seat,
-- its final line and its trace.
--
-- KEYS: 1 gz, 2 lb, 3 gh
-- ARGV: the places wanted (0-based)
-- Returns {count, {seat, line or false, trace or false, ...}}
local out = {}
for _, i in ipairs(ARGV) do
  local m = redis.call('ZRANGE', KEYS[1], i, i)[1]
  if m then
    local seat = tostring(tonumber(m))
    out[#out + 1] = seat
    out[#out + 1] = redis.call('HGET', KEYS[2], seat)
    out[#out + 1] = redis.call('HGET', KEYS[3], seat)
  end
end
return {redis.call('ZCARD', KEYS[1]), out}
