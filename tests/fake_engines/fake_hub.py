#!/usr/bin/env python3
"""A scripted Hub engine for testing `kroon match` (tests/match.rs, crates/match/tests/soak.rs).

usage: fake_hub.py MODE [--after N] [--sleep S] [--score X | --score-white X] [--pidlog FILE]
                   [--then hang|first|bad] [--mb M] [--line-bytes N]

MODE says how `go` is answered:
  first    the first legal move in Hub notation order (pydraughts keeps the board)
  illegal  `done move=11-15`, which is never legal (11 and 15 are on the same row)
  crash    writes a line to standard error and exits with status 3
  hang     never answers (but still reads and obeys `quit`)
  slow     sleeps --sleep seconds, then plays like `first`
  nomove   `done` without a move
  garbage  300 lines that are not Hub replies (random bytes, words, `info` with broken values),
           then as --then says
  flood    --mb megabytes (default 5) of junk lines of --line-bytes bytes (default 100), then as
           --then says; --line-bytes 0 writes it all as one line, ended only when --then
           is not hang
  spam     plays like `first`, and from its first answer on writes junk lines without pause, from
           a thread of its own, until it is stopped
--then says what garbage and flood do next: hang (the default) writes nothing more, first plays
like `first`, bad writes a `done` line that cannot be read.
With --after N the first N-1 searches of the process play like `first`; the mode applies from the
N-th on. --score X reports `info score=X` (from the mover's side) with every move; --score-white X
reports X from White's side. --pidlog appends the process id to FILE at start, to count restarts.
"""
import os
import random
import re
import sys
import threading
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
then = opts.get("then", "hang")
rng = random.Random(1)
out_lock = threading.Lock()

if "pidlog" in opts:
    with open(opts["pidlog"], "a") as f:
        f.write(f"{os.getpid()}\n")


def say(line):
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def write_bytes(data):
    with out_lock:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def junk_line():
    """A line no Hub reader should act on: random bytes (not all UTF-8), random words, or a
    reply word with values that do not parse. Never `done`, `error` or a valid `info`."""
    kind = rng.randrange(4)
    if kind == 0:
        alphabet = b"\x00\x01\x7f\x80\xc3\xff\t\r=\"abc "
        body = bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 200)))
    elif kind == 1:
        words = ["pos", "go", "wait", "ready", "=", '"', "move=", "x"]
        body = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 20))).encode()
    elif kind == 2:
        body = f"info depth=deep score={rng.random()}x pv=\"unclosed".encode()
    else:
        body = b"#" * rng.randrange(1, 2000)
    return body.replace(b"\n", b" ") + b"\n"


def flood():
    total = int(float(opts.get("mb", "5")) * 1_000_000)
    width = int(opts.get("line-bytes", "100"))
    if width == 0:
        chunk = b"x" * 65536
        for _ in range(total // len(chunk)):
            write_bytes(chunk)
        if then != "hang":
            write_bytes(b"\n")
        return
    line = b"~" * (width - 1) + b"\n"
    batch = line * max(1, 65536 // width)
    for _ in range(total // len(batch)):
        write_bytes(batch)


def spam_forever():
    line = b"spam " * 20 + b"\n"
    while True:
        try:
            write_bytes(line * 100)
        except (BrokenPipeError, OSError):
            os._exit(0)


spamming = False


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
        if act in ("garbage", "flood"):
            if act == "garbage":
                write_bytes(b"".join(junk_line() for _ in range(300)))
            else:
                flood()
            if then == "hang":
                continue
            if then == "bad":
                say('done move="32-28')
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
        if act == "spam" and not spamming:
            spamming = True
            threading.Thread(target=spam_forever, daemon=True).start()
