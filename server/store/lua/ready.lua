-- ready: a seat's ready flag in the lobby of a room whose seats live in
-- hashes (counted, not announced).
--
-- KEYS: 1 room, 2 ready, 3 pl
-- ARGV: 1 seat, 2 '1' ready or '0'
-- Returns how many are ready, or -1: no such seat
-- uses: keep
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then return -1 end
if ARGV[2] == '1' then redis.call('SADD', KEYS[2], ARGV[1]) else redis.call('SREM', KEYS[2], ARGV[1]) end
keep(KEYS[2], KEYS[1])
return redis.call('SCARD', KEYS[2])
