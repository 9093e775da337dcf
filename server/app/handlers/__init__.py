"""The commands: which module answers which command, and what each does
(entering and leaving rooms, playing a seat's game, looking through a room's
field, tournaments)."""
