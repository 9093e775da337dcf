-- keep: a key created by a script lives as long as its room (or tournament),
-- as server/store/keys.py says (KEYS, LIFETIMES).
local function keep(key, room_key)
  local ttl = redis.call('PTTL', room_key)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
