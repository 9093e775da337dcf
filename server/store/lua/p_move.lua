-- p_move: a one-time code that moves a player to another device: its digest
-- and when it expires, in the profile (a new code replaces the last). The
-- caller also writes the code's index (kp:mv:{digest}, another slot).
--
-- KEYS: 1 the profile (kp:{P}:p)
-- ARGV: 1 the code's digest, 2 until when it is valid (ms)
-- Returns 1, or 0 if there is no such player
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'move', ARGV[1], 'move_until', ARGV[2])
return 1
