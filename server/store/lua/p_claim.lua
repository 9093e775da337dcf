-- p_claim: the device-move code, once: if it is the profile's pending code
-- and still valid, it is spent and a new key (its digest, a field k:{digest})
-- becomes the player's; beyond the cap of keys the oldest are revoked.
--
-- KEYS: 1 the profile (kp:{P}:p)
-- ARGV: 1 the code's digest, 2 now ms, 3 the new key's digest, 4 most keys kept
-- Returns {'ok', nickname, revoked digests...} or {'bad'}
local pending = redis.call('HMGET', KEYS[1], 'move', 'move_until', 'nick')
if not pending[1] or pending[1] ~= ARGV[1] or tonumber(pending[2]) < tonumber(ARGV[2]) then
  return {'bad'}
end
redis.call('HDEL', KEYS[1], 'move', 'move_until')
redis.call('HSET', KEYS[1], 'k:' .. ARGV[3], ARGV[2])
local held = {}  -- the other keys, oldest first: the new one is never revoked
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local digest = string.sub(fields[i], 3)
  if string.sub(fields[i], 1, 2) == 'k:' and digest ~= ARGV[3] then
    held[#held + 1] = {tonumber(fields[i + 1]), digest}
  end
end
table.sort(held, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
local out = {'ok', pending[3]}
for i = 1, #held + 1 - tonumber(ARGV[4]) do
  redis.call('HDEL', KEYS[1], 'k:' .. held[i][2])
  out[#out + 1] = held[i][2]
end
return out
