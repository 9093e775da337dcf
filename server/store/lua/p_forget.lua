-- p_forget: a player asks to be forgotten: their profile (with their keys'
-- digests, their ratings) and histories are deleted. The caller then deletes the keys' index
-- entries (other slots).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its history (kp:{P}:h), 3 its rating history (kp:{P}:rh)
-- ARGV: none
-- Returns the digests of the player's keys (empty if there was no such player)
local digests = {}
local fields = redis.call('HKEYS', KEYS[1])
for _, f in ipairs(fields) do
  if string.sub(f, 1, 2) == 'k:' then digests[#digests + 1] = string.sub(f, 3) end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return digests
