#!/usr/bin/env python3
"""A scripted DXP engine (server and follower) for testing `kroon match` as a DXP referee.

usage: fake_dxp.py [first|illegal] [--name NAME] [--log FILE]

Listens on 127.0.0.1 at a free port and prints `port N` on standard output. Accepts one
connection at a time and plays any number of games on it: answers a game request (`R`) with an
accept (`A`), plays the first legal move (Hub order) whenever it is to move, and answers a game
end (`E`) with its own. In `illegal` mode every move it sends is 11-15, which is never legal.
--log appends every message received to FILE, one per line.
"""
import socket
import sys

import draughts

args = sys.argv[1:]
mode = args.pop(0) if args and not args[0].startswith("--") else "first"
opts = {}
while args:
    key = args.pop(0).lstrip("-")
    opts[key] = args.pop(0)
name = opts.get("name", "fake-dxp")


def log(msg):
    if "log" in opts:
        with open(opts["log"], "a") as f:
            f.write(msg + "\n")


def board_from_request(msg):
    """The start of a game request: `A` (initial) or `B` + colour + 50 squares of `wzWZe`."""
    if msg[42] == "A":
        return draughts.Board("standard", "W:W31-50:B1-20")
    turn = "W" if msg[43] == "W" else "B"
    white, black = [], []
    for i, c in enumerate(msg[44:94], start=1):
        if c in "wW":
            white.append(("K" if c == "W" else "") + str(i))
        elif c in "zZ":
            black.append(("K" if c == "Z" else "") + str(i))
    return draughts.Board("standard", f"{turn}:W{','.join(white)}:B{','.join(black)}")


def send(conn, text):
    conn.sendall(text.encode() + b"\0")


def play(conn, board):
    if board.is_over():
        return
    if mode == "illegal":
        send(conn, "M0000111500")
        return
    m = min(board.legal_moves(), key=lambda m: m.hub_move)
    caps = sorted(m.captures)
    send(conn, "M0000%02d%02d%02d%s" % (m.steps_move[0], m.steps_move[-1], len(caps),
                                        "".join("%02d" % c for c in caps)))
    board.push(m)


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
print(f"port {srv.getsockname()[1]}", flush=True)

while True:
    conn, _ = srv.accept()
    buf, board, me = b"", None, None
    while True:
        data = conn.recv(4096)
        if not data:
            break
        buf += data
        while b"\0" in buf:
            raw, buf = buf.split(b"\0", 1)
            msg = raw.decode()
            log(msg)
            if msg.startswith("R"):
                me = draughts.WHITE if msg[35] == "W" else draughts.BLACK
                board = board_from_request(msg)
                send(conn, "A" + name.ljust(32)[:32] + "0")
                if board.turn == me:
                    play(conn, board)
            elif msg.startswith("M"):
                frm, to, n = int(msg[5:7]), int(msg[7:9]), int(msg[9:11])
                caps = sorted(int(msg[11 + 2 * i:13 + 2 * i]) for i in range(n))
                mv = next(m for m in board.legal_moves()
                          if (m.steps_move[0], m.steps_move[-1], sorted(m.captures)) == (frm, to, caps))
                board.push(mv)
                play(conn, board)
            elif msg.startswith("E"):
                send(conn, "E00")
    conn.close()
