-- round_out: a player who may play a round will not (they withdrew or were
-- kicked): a seat they never took is closed (and counted out of the race's
-- racers, once: the seat key's existence makes it idempotent); a seat taken
-- is the caller's to leave.
--
-- KEYS: 1 room, 2 pl, 3 seat
-- ARGV: 1 seat, 2 race
-- Returns {'seated', -1}, or {'out', seats still racing or -1}
-- uses: keep
if redis.call('EXISTS', KEYS[3]) == 1 then
  if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'seated', -1} end
  return {'out', -1}
end
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[2] then return {'out', -1} end
redis.call('HSET', KEYS[3], 'ver', 0, 'seq', 0, 'done', 1)
keep(KEYS[3], KEYS[1])
return {'out', redis.call('HINCRBY', KEYS[1], 'active', -1)}
