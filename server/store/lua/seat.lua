-- seat: a seat's game as stored, with its latest log entries, its line and,
-- in a challenge, its ghost trace. A packed seat (pack_seat: its game is over)
-- has its whole log in its hash (fields log, log2...) and none in the list.
--
-- KEYS: 1 seat, 2 log, 3 lb, 4 gh
-- ARGV: 1 how many recent log entries, 2 seat no
-- Returns {the seat's hash (ver, seq, snap, done; log... once packed), recent entries, line or false, trace or false}
return {redis.call('HGETALL', KEYS[1]),
        redis.call('LRANGE', KEYS[2], -tonumber(ARGV[1]), -1),
        redis.call('HGET', KEYS[3], ARGV[2]),
        redis.call('HGET', KEYS[4], ARGV[2])}
