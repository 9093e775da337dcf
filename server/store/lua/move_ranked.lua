-- move_ranked: a game command of a seat in a room whose leaderboard is a
-- ranking read by ticks (its seats in hashes): checked and stored
-- (seat_command; a racer ranked in the race gets their seat with their first
-- command), then the seat's score in the ranking and the field's progress
-- (cards on foundations and statuses -> how many players) are updated. No
-- event is recorded or published; the reply carries the seat's rank.
--
-- KEYS: 1 room, 2 seat, 3 log, 4 lb, 5 on, 6 rank, 7 hist, 8 gh, 9 gz
-- ARGV: 1 race, 2 seat no, 3 connection id, 4 expected version, 5 seq, 6 log entry,
--       7 snapshot, 8 leaderboard line, 9 '1' if the seat is done after it,
--       10 the most commands the log may hold with this one,
--       11 the seat's member in rank, 12 its score, 13 cards on foundations before,
--       14 after, 15 status before, 16 after, 17 the seat's ghost trace ('' unchanged),
--       18 its score among the ghosts once done ('' none: not a challenge)
-- Returns {'ok', seats still racing or -1, rank (1..), ranked} or a refusal as move's
-- uses: seat_command
local refused, active = seat_command(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV, KEYS[6],
                                     ARGV[11], {KEYS[8], KEYS[9], ARGV[17], ARGV[18]})
if refused then return refused end
redis.call('ZADD', KEYS[6], ARGV[12], ARGV[11])
if ARGV[13] ~= ARGV[14] then
  redis.call('HINCRBY', KEYS[7], ARGV[13], -1)
  redis.call('HINCRBY', KEYS[7], ARGV[14], 1)
end
if ARGV[15] ~= ARGV[16] then
  redis.call('HINCRBY', KEYS[7], 's:' .. ARGV[15], -1)
  redis.call('HINCRBY', KEYS[7], 's:' .. ARGV[16], 1)
end
return {'ok', active, redis.call('ZRANK', KEYS[6], ARGV[11]) + 1, redis.call('ZCARD', KEYS[6])}
