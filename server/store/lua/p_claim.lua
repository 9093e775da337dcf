-- p_claim: the device-move code, once: if it is the profile's pending code
-- and still valid, it is spent and a new key (its digest) becomes the
-- player's; beyond the cap of keys the oldest are revoked.
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its keys (kp:{P}:k)
-- ARGV: 1 the code's digest, 2 now ms, 3 the new key's digest, 4 most keys kept
-- Returns {'ok', nickname, revoked digests...} or {'bad'}
-- uses: keep
local pending = redis.call('HMGET', KEYS[1], 'move', 'move_until', 'nick')
if not pending[1] or pending[1] ~= ARGV[1] or tonumber(pending[2]) < tonumber(ARGV[2]) then
  return {'bad'}
end
redis.call('HDEL', KEYS[1], 'move', 'move_until')
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
keep(KEYS[2], KEYS[1])
local out = {'ok', pending[3]}
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if extra > 0 then
  for _, digest in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do
    out[#out + 1] = digest
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
return out
