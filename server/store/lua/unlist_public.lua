-- unlist_public: a room leaves the lobby's list (its race ended, or it is
-- gone); its address may list one more. Safe to repeat.
--
-- KEYS: 1 waiting, 2 running, 3 who, 4 per address (as list_public's)
-- ARGV: 1 room
-- Returns 1 if it was listed, else 0
local room = ARGV[1]
redis.call('ZREM', KEYS[1], room)
redis.call('ZREM', KEYS[2], room)
local who = redis.call('HGET', KEYS[3], room)
if not who then return 0 end
redis.call('HDEL', KEYS[3], room)
if redis.call('HINCRBY', KEYS[4], who, -1) <= 0 then redis.call('HDEL', KEYS[4], who) end
return 1
