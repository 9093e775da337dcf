"""Players who are remembered without passwords: a key kept by the browser,
a profile kept by the server (:mod:`.player_service`), and the results of
every race a player's seat ran (:mod:`.race_results`)."""
