-- seat: a seat's game as stored, with its latest log entries, its line and,
-- in a challenge, its ghost trace.
--
-- KEYS: 1 seat, 2 log, 3 lb, 4 gh
-- ARGV: 1 how many recent log entries, 2 seat no
-- Returns {{ver, seq, snap, done}, recent entries, line or false, trace or false}
return {redis.call('HMGET', KEYS[1], 'ver', 'seq', 'snap', 'done'),
        redis.call('LRANGE', KEYS[2], -tonumber(ARGV[1]), -1),
        redis.call('HGET', KEYS[3], ARGV[2]),
        redis.call('HGET', KEYS[4], ARGV[2])}
