"""External test bots (docs/protocol.md), misbehaving on purpose: ``python _bad_bot.py MODE [ARG]``.

Modes: ``ok`` (first legal action), ``sleep`` (never answers in time), ``late`` (the first answer
comes after ARG seconds, then prompt answers), ``crash`` (exits at its first request),
``crashlater`` (answers its first request, exits at the second),
``garbage`` (answers a line that is not JSON), ``illegal`` (answers ``peng`` when it may not),
``wrongid`` (answers with the wrong request id), ``record`` (like ``ok``, appends every line it
reads to the file ARG), ``deaf`` (never reads its input again: the pipe fills up).
"""

import json
import sys
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else None
if mode == "deaf":
    time.sleep(60)
    sys.exit(0)
first = True
for line in sys.stdin:
    if mode == "record":
        with open(arg, "a", encoding="utf-8") as fh:
            fh.write(line)
    msg = json.loads(line)
    if msg["type"] != "request":
        continue
    legal = msg["legal"]
    answer = {"id": msg["id"], "action": legal[0]}
    if mode == "sleep":
        time.sleep(30)
    elif mode == "late" and first:
        time.sleep(float(arg))
    elif mode == "crash" or (mode == "crashlater" and not first):
        sys.exit(3)
    elif mode == "garbage":
        sys.stdout.write("I think I will discard the red dragon\n")
        sys.stdout.flush()
        continue
    elif mode == "illegal":
        answer["action"] = "peng" if "peng" not in legal else "discard 9s" if "discard 9s" not in legal else "angang 1m"
    elif mode == "wrongid":
        answer["id"] = msg["id"] + 7
    first = False
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
