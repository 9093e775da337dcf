"""Stable reason codes of rejections, and the websocket close codes we use.

A reason code never changes meaning once published: clients switch on it.
The sentence sent with it may be more precise than the default here.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Reason(StrEnum):
    # the edge: frames that are not commands
    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    BAD_FIELD = "bad_field"
    FLOOD = "flood"
    # who you are
    NOT_IN_ROOM = "not_in_room"
    ALREADY_IN_ROOM = "already_in_room"
    SPECTATOR = "spectator"
    NOT_SPECTATOR = "not_spectator"
    OWN_RACE = "own_race"
    BAD_TOKEN = "bad_token"
    # rooms
    UNKNOWN_ROOM = "unknown_room"
    BAD_NICKNAME = "bad_nickname"
    NAME_TAKEN = "name_taken"
    ROOM_FULL = "room_full"
    RACE_STARTED = "race_started"
    ROUND_ROOM = "round_room"
    BAD_CODE = "bad_code"
    BAD_SETTINGS = "bad_settings"
    NOT_HOST = "not_host"
    NOT_LOBBY = "not_lobby"
    NOT_READY = "not_ready"
    UNKNOWN_SEAT = "unknown_seat"
    CANNOT_KICK_SELF = "cannot_kick_self"
    NOT_ENDED = "not_ended"
    CLOSED = "closed"
    # tournaments
    BAD_INVITE = "bad_invite"
    BANNED = "banned"
    BAD_HANDOFF = "bad_handoff"
    # players
    UNKNOWN_PLAYER = "unknown_player"
    NOT_IDENTIFIED = "not_identified"
    # the daily deal
    DAILY_PLAYED = "daily_played"
    NO_DAILY = "no_daily"
    # playing
    NOT_STARTED = "not_started"
    NOT_PLAYING = "not_playing"
    BAD_NOTATION = "bad_notation"
    ILLEGAL_MOVE = "illegal_move"
    NOTHING_TO_UNDO = "nothing_to_undo"
    UNDO_DISABLED = "undo_disabled"
    HINTS_DISABLED = "hints_disabled"
    NO_AUTOCOMPLETE = "no_autocomplete"
    STALE = "stale"
    ROLLED_BACK = "rolled_back"
    TOO_MANY_MOVES = "too_many_moves"
    # the server
    TOO_MANY = "too_many"
    ADDRESS_FULL = "address_full"
    NO_WINNABLE_DEAL = "no_winnable_deal"
    SERVER_FULL = "server_full"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


DEFAULT_TEXT: dict[Reason, str] = {
    Reason.BAD_JSON: "the frame is not a JSON text",
    Reason.BAD_MESSAGE: 'a message is an object {"t": type, "d": {...}}',
    Reason.UNKNOWN_TYPE: "no such message type",
    Reason.BAD_FIELD: "a field is missing or has the wrong type",
    Reason.FLOOD: "too many messages: slow down",
    Reason.NOT_IN_ROOM: "join or watch a room first",
    Reason.ALREADY_IN_ROOM: "this connection is already in a room",
    Reason.SPECTATOR: "spectators cannot play",
    Reason.NOT_SPECTATOR: "only a spectator can follow a player",
    Reason.OWN_RACE: ("you race in this room: its spectators' boards would show you your own "
                      "face-down cards; watch it once the race has ended"),
    Reason.BAD_TOKEN: "this seat token is not valid for the room",
    Reason.UNKNOWN_ROOM: "there is no such room",
    Reason.BAD_NICKNAME: "a nickname is 1 to 20 letters, digits, spaces or - _ .",
    Reason.NAME_TAKEN: "that nickname is taken in this room",
    Reason.ROOM_FULL: "the room is full",
    Reason.RACE_STARTED: "the race has already started",
    Reason.ROUND_ROOM: ("this room is a tournament round's: only its players enter it, "
                        "with their token (resume)"),
    Reason.BAD_CODE: "that is not a valid deal code",
    Reason.BAD_SETTINGS: "those room settings are not valid",
    Reason.NOT_HOST: "only the host can do that",
    Reason.NOT_LOBBY: "that can only be done in the lobby",
    Reason.NOT_READY: "every player must be ready first",
    Reason.UNKNOWN_SEAT: "there is no player in that seat",
    Reason.CANNOT_KICK_SELF: "the host cannot remove themselves: leave instead",
    Reason.NOT_ENDED: "the race is not over yet",
    Reason.CLOSED: "this challenge has closed: its results and replays are open to everyone",
    Reason.BAD_INVITE: "this tournament needs its invite code to register",
    Reason.BANNED: "the organizer has banned that nickname from this tournament",
    Reason.BAD_HANDOFF: "that handoff code is not valid: it is wrong, used or expired",
    Reason.UNKNOWN_PLAYER: ("this player key is not known (forgotten, revoked or expired): "
                            "identify without a key for a new one"),
    Reason.NOT_IDENTIFIED: "identify first: this connection has no player",
    Reason.DAILY_PLAYED: ("you have played today's deal of this mode: one ranked attempt a "
                          "day; once the day ends, play it again unranked"),
    Reason.NO_DAILY: "there is no daily deal of that mode today",
    Reason.NOT_STARTED: "the race has not started yet",
    Reason.NOT_PLAYING: "you are not playing a game now",
    Reason.BAD_NOTATION: "that is not a move in KL1 notation",
    Reason.ILLEGAL_MOVE: "that move is not allowed",
    Reason.NOTHING_TO_UNDO: "there is nothing to undo",
    Reason.UNDO_DISABLED: "undo is off in this room",
    Reason.HINTS_DISABLED: "hints are off in this room",
    Reason.NO_AUTOCOMPLETE: "the game cannot be finished automatically yet",
    Reason.STALE: "that sequence number was already used for another command",
    Reason.ROLLED_BACK: ("the server lost your latest moves (its storage came back from an "
                         "older copy): your board is as it was stored, play on from there"),
    Reason.TOO_MANY_MOVES: ("this seat has played as many commands as a race allows: you may "
                            "still resign"),
    Reason.NO_WINNABLE_DEAL: ("no certified winnable deal of this mode is ready right now: try "
                              "again in a little while, or choose a random deal"),
    Reason.TOO_MANY: ("too many requests of this kind from your address (or connection): wait "
                      "a while"),
    Reason.ADDRESS_FULL: ("the rooms (or tournaments) made from your address hold as many places "
                          "as one address may"),
    Reason.SERVER_FULL: "the server holds as many rooms and tournaments as it may: try later",
    Reason.UNAVAILABLE: "the server cannot reach its storage; try again shortly",
    Reason.INTERNAL: "something went wrong on the server",
}


class CloseCode(IntEnum):
    NORMAL = 1000
    GOING_AWAY = 1001  # the server is shutting down: reconnect
    POLICY = 1008  # flood: too many messages
    TOO_BIG = 1009  # a frame over the size cap
    INTERNAL = 1011
    TAKEN_OVER = 4000  # the seat was opened by another connection
    KICKED = 4001  # the host removed this player from the lobby
    LEFT = 4002  # the player left the room
