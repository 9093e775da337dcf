-- t_register: a player registers in a tournament: a nickname not banned,
-- registration open, the invite code right, room left, the nickname free
-- (each refusal in that order: a ban outlasts whatever else would refuse the
-- name now). Their standing line starts with the rounds already started
-- counted as missed: the caller passes one line tail and score for each
-- first round a player may have, and the script picks by the header's
-- `first` (the first round not started). Not an event: the caller announces
-- it where the tournament shows everyone.
--
-- KEYS: 1 t, 2 pl, 3 nk, 4 tk, 5 st, 6 rank, 7 ban, 8 ev
-- ARGV: 1 folded nickname, 2 player record JSON up to its first round ('..."first":'),
--       3 token digest, 4 nickname as JSON, 5 ttl ms, 6 '1' if the invite code was
--       right (or none is needed), then for the first round f = 1, 2...:
--       5 + 2f the standing line's tail, 6 + 2f its score
-- Returns {'ok', player, first round}, {'name_taken', the player who has it}, or
-- {'gone'}, {'banned'}, {'closed'}, {'bad_invite'}, {'full'}
-- uses: member
local head = redis.call('HMGET', KEYS[1], 'max', 'reg', 'players', 'first')
if not head[1] then return {'gone'} end
if redis.call('SISMEMBER', KEYS[7], ARGV[1]) == 1 then return {'banned'} end
local first = tonumber(head[4] or '1')
if head[2] ~= '1' or not ARGV[6 + 2 * first] then return {'closed'} end
if ARGV[6] ~= '1' then return {'bad_invite'} end
if tonumber(head[3] or '0') >= tonumber(head[1]) then return {'full'} end
local taken = redis.call('HGET', KEYS[3], ARGV[1])
if taken then return {'name_taken', taken} end
local player = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('HINCRBY', KEYS[1], 'players', 1)
redis.call('HINCRBY', KEYS[1], 'in' .. first, 1)
redis.call('HSET', KEYS[3], ARGV[1], player)
redis.call('HSET', KEYS[4], ARGV[3], player)
redis.call('HSET', KEYS[2], player, ARGV[2] .. first .. '}')
redis.call('HSET', KEYS[5], player, '{"player":' .. player .. ',"nickname":' .. ARGV[4] ..
           ARGV[5 + 2 * first])
redis.call('ZADD', KEYS[6], ARGV[6 + 2 * first], member(player))
for i = 1, 8 do
  if i ~= 7 then redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
end
return {'ok', player, first}
