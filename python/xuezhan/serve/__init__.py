"""The game room (``xuezhan serve``, extra ``serve``): tables of four seats for people and bots,
spectators, the server's clock, and the replay viewer. See docs/room.md.

Modules: :mod:`.protocol` (websocket messages), :mod:`.tables` (seating, matches, the clock),
:mod:`.bots` (the bots on offer), :mod:`.words` (the settlement and seat names in words),
:mod:`.reveal` (every hand shown at the end of a hand), :mod:`.replay` (replay frames from hand
logs), :mod:`.app` (the Starlette app); pages in ``static/``, the room's CJK font in
``static/fonts/`` (``tools/subset_font.py`` makes it).
"""
