-- list_public: a public room's place in the lobby's list, as its phase says:
-- waiting (lobby) or running, with the address that listed it; at most a
-- few rooms listed per address at once (the first listing is refused past it).
--
-- KEYS: 1 waiting (zset: room -> when listed, ms), 2 running (zset: room ->
--       start ms), 3 who (hash: room -> address), 4 per address (hash:
--       address -> rooms listed)
-- ARGV: 1 room, 2 'wait' or 'run', 3 score (ms), 4 address, 5 the cap per address
-- Returns 1 (listed, or moved) or 0 (refused: the address has as many as it may)
local room = ARGV[1]
local who = redis.call('HGET', KEYS[3], room)
if not who then
  local n = tonumber(redis.call('HGET', KEYS[4], ARGV[4]) or '0')
  if n >= tonumber(ARGV[5]) then return 0 end
  redis.call('HSET', KEYS[3], room, ARGV[4])
  redis.call('HINCRBY', KEYS[4], ARGV[4], 1)
end
if ARGV[2] == 'wait' then
  redis.call('ZREM', KEYS[2], room)
  if not redis.call('ZSCORE', KEYS[1], room) then redis.call('ZADD', KEYS[1], ARGV[3], room) end
else
  redis.call('ZREM', KEYS[1], room)
  redis.call('ZADD', KEYS[2], ARGV[3], room)
end
return 1
