"""The game room (``xuezhan serve``, extra ``serve``): tables of four seats for people and bots,
spectators, the server's clock, and the replay viewer. See docs/room.md.

Modules: :mod:`.protocol` (websocket messages), :mod:`.tables` (seating, matches, the clock),
:mod:`.bots` (the bots on offer), :mod:`.words` (the settlement in words), :mod:`.replay`
(replay frames from hand logs), :mod:`.app` (the Starlette app); pages in ``static/``.
"""
