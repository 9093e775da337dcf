-- t_player: whose token this is, their record and whether they are out, and
-- how many players may play round n: those whose first round is n or before,
-- players 0 to that count - 1 (a round's start sets the first round of
-- those registering after it).
--
-- KEYS: 1 t, 2 tk, 3 pl, 4 out
-- ARGV: 1 token digest, 2 round n
-- Returns {player, record JSON, 'withdrawn', 'kicked' or '', how many may play}, or false
local player = redis.call('HGET', KEYS[2], ARGV[1])
if not player then return false end
local fields = {}
for f = 1, tonumber(ARGV[2]) do fields[f] = 'in' .. f end
local open = 0
for _, count in ipairs(redis.call('HMGET', KEYS[1], unpack(fields))) do
  open = open + tonumber(count or '0')
end
return {tonumber(player), redis.call('HGET', KEYS[3], player),
        redis.call('HGET', KEYS[4], player) or '', open}
