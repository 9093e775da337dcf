-- t_out: a player of a tournament withdraws (by their token) or is kicked (by
-- their number; a ban keeps their folded nickname out from then on). A
-- withdrawn player stays in the standings, marked; a kicked one leaves them
-- and their token stops working.
--
-- KEYS: 1 t, 2 pl, 3 tk, 4 nk, 5 st, 6 rank, 7 out, 8 ban
-- ARGV: 1 player ('' to find them by token), 2 token digest, 3 'withdrawn' or 'kicked',
--       4 '1' to ban their nickname
-- Returns {'ok', player}, {'already', player} (withdrawn twice) or {'unknown'}
-- uses: member, keep
local player = ARGV[1]
if player == '' then
  player = redis.call('HGET', KEYS[3], ARGV[2])
  if not player then return {'unknown'} end
end
local record = redis.call('HGET', KEYS[2], player)
local was = redis.call('HGET', KEYS[7], player)
if not record or was == 'kicked' then return {'unknown'} end
local rec = cjson.decode(record)
if ARGV[3] == 'withdrawn' then
  if was then return {'already', player} end
  local line = redis.call('HGET', KEYS[5], player)
  if line then redis.call('HSET', KEYS[5], player, string.sub(line, 1, -2) .. ',"withdrawn":true}') end
  redis.call('HINCRBY', KEYS[1], 'withdrawn', 1)
else
  redis.call('HDEL', KEYS[3], rec.token)
  redis.call('HDEL', KEYS[5], player)
  redis.call('ZREM', KEYS[6], member(player))
  redis.call('HINCRBY', KEYS[1], 'kicked', 1)
  redis.call('HINCRBY', KEYS[1], 'players', -1)
  if was == 'withdrawn' then redis.call('HINCRBY', KEYS[1], 'withdrawn', -1) end
  if ARGV[4] == '1' then
    redis.call('SADD', KEYS[8], rec.fold)
    keep(KEYS[8], KEYS[1])
  else
    redis.call('HDEL', KEYS[4], rec.fold)
  end
end
redis.call('HSET', KEYS[7], player, ARGV[3])
keep(KEYS[7], KEYS[1])
return {'ok', player}
