-- round_seat: a tournament's player takes their seat in a round's room whose
-- seats live in hashes (seat = player number) the first time they come,
-- racing on the round's clock. The room counted them among its racers
-- (`active`) when it was created.
--
-- KEYS: 1 room, 2 pl, 3 nk, 4 tk, 5 lb, 6 rank, 7 hist, 8 seat
-- ARGV: 1 seat, 2 player JSON {nickname, fold, token}, 3 folded nickname, 4 token digest,
--       5 line JSON, 6 its score, 7 race
-- Returns 'ok', 'out' (the seat was closed to them: they withdrew or were
-- kicked before they came), 'ended' (the round's race is over) or 'gone'
-- uses: keep, member
if redis.call('HGET', KEYS[1], 'live') ~= ARGV[7] then
  if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
  return 'ended'
end
if redis.call('EXISTS', KEYS[8]) == 1 then
  if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'ok' end
  return 'out'
end
redis.call('HSET', KEYS[8], 'ver', 0, 'seq', 0, 'done', 0)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
redis.call('ZADD', KEYS[6], ARGV[6], member(ARGV[1]))
redis.call('HINCRBY', KEYS[1], 'players', 1)
redis.call('HINCRBY', KEYS[7], '0', 1)
redis.call('HINCRBY', KEYS[7], 's:racing', 1)
for i = 2, 8 do keep(KEYS[i], KEYS[1]) end
return 'ok'
