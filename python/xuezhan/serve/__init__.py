"""The game room (``xuezhan serve``, extra ``serve``): tables of four seats for people and bots,
spectators, the server's clock, and the replay viewer. See docs/room.md ("The room's code").

One module per job:

- the app: :mod:`.app` (``create_app`` and its routes), :mod:`.served` (what the endpoints share,
  in ``app.state``), :mod:`.endpoints` (the HTTP endpoints), :mod:`.table_socket` (the websocket
  of a table), :mod:`.protocol` (its messages);
- the tables: :mod:`.lobby` (``Room``: the tables of one server), :mod:`.tables` (``Table``: a
  match), :mod:`.seating` (seats, tokens, the host), :mod:`.hand_play` (one hand over the
  engine's seat loop, the person's clock), :mod:`.connections` (each connection's queue, the
  fan-out), :mod:`.views` (what each connection is sent), :mod:`.sweeping` (idle seats and
  tables), :mod:`.booking` (a finished hand into :mod:`.standings`), :mod:`.limits`,
  :mod:`.claim_window` (what those not asked see while a discard's claims are decided);
- what one client may do: :mod:`.gate` (connections per address and in total), :mod:`.sitting`
  (a sit checked, the name proven, then made a player), :mod:`.attempts` (sits and password
  attempts, the backoff and the lockout), :mod:`.passwords` (the password thread);
- words and pictures: :mod:`.words` (the settlement and seat names in words), :mod:`.reveal`
  (every hand shown at the end), :mod:`.locked` (血流成河's locked hands), :mod:`.replay` (replay
  frames from hand logs), :mod:`.review_jobs` (reviews in worker processes), :mod:`.bots`,
  :mod:`.deals` (fair deals), :mod:`.names`; pages in ``static/``, the room's CJK font in
  ``static/fonts/`` (``tools/subset_font.py`` makes it).
"""
