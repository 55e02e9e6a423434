#!/usr/bin/env python3
"""pydraughts' DXPEngine (a DXP client that sends the game requests) plays whole games against
`kroon dxp --listen`, one with Kroon as White and one as Black; pydraughts' side plays random moves.

Every move Kroon sends must be one that pydraughts lists as legal, Kroon must end each game with
the result pydraughts' rules give, and Kroon's own result line must agree.
Exit status: 0 on success, 1 on a wrong move or result, 2 on a hang.
usage: dxp_pydraughts.py KROON_BINARY [--seed S]

DXPEngine quirks this works around (see the peer notes): it is started with engine-opened semantics
(Kroon is started here, on a free port, and must be listening before DXPEngine connects; with no
listener DXPEngine would spin forever); it waits in busy loops with no timeout, so every call runs
under an alarm; it reads only one message per receive, so Kroon pauses before a first move; its
receiver thread starts once, so each game gets a new DXPEngine; quit() sleeps 7 s.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

import draughts
from draughts.engine import DXPEngine

MOVE_TIMEOUT = 20   # seconds for any one DXPEngine call
TOTAL_TIMEOUT = 100  # seconds for the whole script


class Hang(Exception):
    pass


def on_alarm(signum, frame):
    raise Hang()


def fail(msg, code=1):
    print(f"FAIL: {msg}", flush=True)
    raise SystemExit(code)


def start_kroon(binary, log):
    proc = subprocess.Popen(
        [binary, "dxp", "--listen", "127.0.0.1:0", "--threads", "1", "--hash", "16",
         "--move-time", "0.05", "--idle-timeout", "60"],
        stdout=subprocess.PIPE, stderr=log, text=True, env={**os.environ, "KROON_LOG": "info"})
    first = proc.stdout.readline().strip()
    if not first.startswith("listening on "):
        fail(f"kroon did not start listening: {first!r}")
    port = int(first.rsplit(":", 1)[1])
    lines = []

    def collect():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=collect, daemon=True).start()
    return proc, port, lines


def result_text(winner):
    return {draughts.WHITE: "2-0", draughts.BLACK: "0-2", 0: "1-1"}.get(winner, "*")


def play_game(port, kroon_white, rng, lines, number):
    eng = DXPEngine(options={"ip": "127.0.0.1", "port": port, "initial-time": 60,
                             "engine-opened": True})
    board = draughts.Board("standard")
    kroon_moves = 0
    while not board.is_over() and len(board.move_stack) < 400:
        if (board.turn == draughts.WHITE) == kroon_white:
            signal.alarm(MOVE_TIMEOUT)
            try:
                res = eng.play(board)
            except Hang:
                if eng.sender.current.result is not None:
                    fail(f"Kroon ended the game (reason {eng.sender.current.result}) "
                         f"where pydraughts plays on: {board.fen}")
                fail(f"no move from Kroon within {MOVE_TIMEOUT} s (an illegal move is "
                     f"dropped by pydraughts) at {board.fen}", 2)
            finally:
                signal.alarm(0)
            if res.move is None:
                fail(f"Kroon closed the connection instead of moving at {board.fen}")
            legal = {m.hub_position_move for m in board.legal_moves()}
            if res.move.hub_position_move not in legal:
                fail(f"Kroon's move {res.move.hub_move} is illegal at {board.fen}")
            board.push(res.move)
            kroon_moves += 1
        else:
            board.push(rng.choice(board.legal_moves()))
    if not board.is_over():
        fail("game did not finish in 400 plies")
    name = eng.id.get("name")
    if name != "Kroon":
        fail(f"Kroon's name read as {name!r}: the game accept is not padded to 32")
    kroon_to_move = (board.turn == draughts.WHITE) == kroon_white
    if kroon_to_move:
        # pydraughts' last move ended the game: Kroon must see it and send the game end.
        eng.sender.send_move(board.move_stack[-1])
        deadline = time.time() + 10
        while eng.sender.current.result is None and time.time() < deadline:
            time.sleep(0.05)
        reason = eng.sender.current.result
        kroon_won = board.winner() == (draughts.WHITE if kroon_white else draughts.BLACK)
        expected = "2" if board.winner() == 0 else ("3" if kroon_won else "1")
        if reason != expected:
            fail(f"Kroon's game end reason is {reason!r}, expected {expected} ({board.fen})")
    signal.alarm(MOVE_TIMEOUT)
    try:
        eng.quit()
    except Hang:
        fail("DXPEngine.quit() hung", 2)
    finally:
        signal.alarm(0)
    # Kroon prints one line per finished game (numbered per connection, so each is "game 1").
    want = result_text(board.winner())
    deadline = time.time() + 10
    results = []
    while time.time() < deadline and len(results) < number:
        results = [l for l in lines if l.startswith("game ")]
        time.sleep(0.05)
    if len(results) < number:
        fail(f"Kroon printed no result line for game {number}; output: {lines}")
    line = results[number - 1]
    if f" {want} (" not in line:
        fail(f"Kroon's result line {line!r} disagrees with pydraughts ({want}, {board.fen})")
    print(f"game {number}: Kroon {'White' if kroon_white else 'Black'}, "
          f"{len(board.move_stack)} plies, {kroon_moves} legal Kroon moves, {want}: {line}",
          flush=True)
    return kroon_moves


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kroon")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    signal.signal(signal.SIGALRM, on_alarm)
    rng = random.Random(args.seed)
    log = tempfile.NamedTemporaryFile("w+", prefix="kroon-dxp-", suffix=".log", delete=False)
    proc, port, lines = start_kroon(args.kroon, log)
    started = time.time()
    code = 0
    try:
        total = 0
        for number, kroon_white in enumerate([True, False], start=1):
            total += play_game(port, kroon_white, rng, lines, number)
            if time.time() - started > TOTAL_TIMEOUT:
                fail("too slow", 2)
        print(f"ok: {total} legal moves from Kroon in 2 games, {time.time() - started:.1f} s")
    except SystemExit as e:
        code = e.code
    except Exception as e:  # a pydraughts failure, reported rather than hidden
        print(f"FAIL: {type(e).__name__}: {e}", flush=True)
        code = 1
    finally:
        proc.kill()
        proc.wait()
        if code:
            log.seek(0)
            print("--- kroon log (last 40 lines) ---")
            print("".join(log.readlines()[-40:]))
        log.close()
        os.unlink(log.name)
    sys.stdout.flush()
    # DXPEngine leaves a receiver thread spinning after a failure: leave without joining it.
    os._exit(code)


if __name__ == "__main__":
    main()
