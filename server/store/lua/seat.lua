-- seat: a seat's game as stored, with its latest log entries and its line.
--
-- KEYS: 1 seat, 2 log, 3 lb
-- ARGV: 1 how many recent log entries, 2 seat no
-- Returns {{ver, seq, snap, done}, recent entries, line or false}
return {redis.call('HMGET', KEYS[1], 'ver', 'seq', 'snap', 'done'),
        redis.call('LRANGE', KEYS[2], -tonumber(ARGV[1]), -1),
        redis.call('HGET', KEYS[3], ARGV[2])}
