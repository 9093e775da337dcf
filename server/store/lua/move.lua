-- move: a game command of a seat in a room whose leaderboard travels as
-- events (its seats in its document): checked and stored (seat_command),
-- then recorded as the room's next event (`progress`, with the line and, as
-- the room allows, the public board) and published; with no event body
-- (a move no one else may see: a challenge's game going on), no event.
--
-- KEYS: 1 room, 2 seat, 3 log, 4 lb, 5 on, 6 ev, 7 channel, 8 gh, 9 gz
-- ARGV: 1 race, 2 seat no, 3 connection id, 4 expected version, 5 seq, 6 log entry,
--       7 snapshot, 8 leaderboard line, 9 '1' if the seat is done after it,
--       10 the most commands the log may hold with this one,
--       11 event body (JSON without its opening brace; '' none), 12 event cap,
--       13 the seat's ghost trace ('' unchanged), 14 its score among the ghosts
--       once done ('' none: not a challenge)
-- Returns {'ok', event version (0: none), seats still racing or -1} or a refusal:
-- {'not_playing'}, {'taken_over'}, {'seq', last seq, version}, {'version', version},
-- {'full'}
-- uses: push_event, seat_command
local refused, active = seat_command(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV, false,
                                     false, {KEYS[8], KEYS[9], ARGV[13], ARGV[14]})
if refused then return refused end
if ARGV[11] == '' then return {'ok', 0, active} end
local v = redis.call('HINCRBY', KEYS[1], 'ev', 1)
push_event(KEYS[6], KEYS[7], ARGV[11], v, tonumber(ARGV[12]))
return {'ok', v, active}
