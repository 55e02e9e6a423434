#!/usr/bin/env python3
"""A scripted Hub engine for testing `kroon match` (tests/match.rs).

usage: fake_hub.py MODE [--after N] [--sleep S] [--score X | --score-white X] [--pidlog FILE]

MODE says how `go` is answered:
  first    the first legal move in Hub notation order (pydraughts keeps the board)
  illegal  `done move=11-15`, which is never legal (11 and 15 are on the same row)
  crash    writes a line to standard error and exits with status 3
  hang     never answers (but still reads and obeys `quit`)
  slow     sleeps --sleep seconds, then plays like `first`
  nomove   `done` without a move
With --after N the first N-1 searches of the process play like `first`; the mode applies from the
N-th on. --score X reports `info score=X` (from the mover's side) with every move; --score-white X
reports X from White's side. --pidlog appends the process id to FILE at start, to count restarts.
"""
import os
import re
import sys
import time

import draughts

args = sys.argv[1:]
mode = args.pop(0) if args else "first"
opts = {}
while args:
    key = args.pop(0).lstrip("-")
    opts[key] = args.pop(0)
after = int(opts.get("after", "1"))
sleep = float(opts.get("sleep", "0"))

if "pidlog" in opts:
    with open(opts["pidlog"], "a") as f:
        f.write(f"{os.getpid()}\n")


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def hub_to_fen(hub):
    """`W` + 50 of `wbWBe` to `W:W..:B..` (White's list first: pydraughts reads the first list as
    White's whatever its letter)."""
    white, black = [], []
    for i, c in enumerate(hub[1:51], start=1):
        if c in "wW":
            white.append(("K" if c == "W" else "") + str(i))
        elif c in "bB":
            black.append(("K" if c == "B" else "") + str(i))
    return f"{hub[0]}:W{','.join(white)}:B{','.join(black)}"


cache = {"pos": None, "moves": [], "board": None}


def board_for(pos, moves):
    """The board after `moves` from `pos`, reusing the last board when the game only grew."""
    if cache["pos"] == pos and moves[: len(cache["moves"])] == cache["moves"]:
        board, new = cache["board"], moves[len(cache["moves"]):]
    else:
        board, new = draughts.Board("standard", hub_to_fen(pos)), moves
    for m in new:
        board.push(draughts.Move(board, hub_move=m))
    cache.update(pos=pos, moves=list(moves), board=board)
    return board


def first_move(board):
    return min(m.hub_move for m in board.legal_moves())


pos, moves, searches = None, [], 0
for raw in sys.stdin:
    line = raw.strip()
    word = line.split(" ", 1)[0] if line else ""
    if word == "hub":
        say(f"id name=fake-{mode} version=1 author=tests")
        say('param name=variant value=normal type=enum values="normal"')
        say("param name=hash value=16 type=int min=1 max=1024")
        say("wait")
    elif word == "init":
        say("ready")
    elif word == "ping":
        say("pong")
    elif word == "quit":
        break
    elif word == "pos":
        m = re.search(r"pos=(\S+)", line)
        pos = m.group(1) if m else None
        m = re.search(r'moves="([^"]*)"', line) or re.search(r"moves=(\S+)", line)
        moves = m.group(1).split() if m else []
    elif word == "go":
        searches += 1
        act = mode if searches >= after else "first"
        if act == "illegal":
            say("done move=11-15")
            continue
        if act == "crash":
            sys.stderr.write("fake engine: simulated crash\n")
            sys.stderr.flush()
            sys.exit(3)
        if act == "hang":
            continue
        if act == "nomove":
            say("done")
            continue
        if act == "slow":
            time.sleep(sleep)
        board = board_for(pos, moves)
        if "score" in opts:
            say(f"info depth=1 score={float(opts['score']):.2f}")
        elif "score-white" in opts:
            x = float(opts["score-white"])
            say(f"info depth=1 score={x if board.turn == draughts.WHITE else -x:.2f}")
        say(f"done move={first_move(board)}")
