#!/usr/bin/env python3
"""Kroon over Hub, driven by pydraughts' HubEngine (an independent Hub client): the handshake,
then Kroon plays itself to the end of a game in one variant. Every move Kroon sends is checked
against pydraughts' legal moves, and any unexpected line pydraughts logs counts as a failure.
pydraughts sends positions in Kroon's field numbers and, since 0.6, 8x8 moves in each variant's
own numbers; Kroon must read and answer those.

usage: hub_pydraughts.py KROON [--variant NAME] [--depth N] [--max-plies N]
Exits 0 when the game reached its end (or the ply cap) without a problem, 1 otherwise.
"""

import argparse
import logging
import os
import signal
import sys
import time
import traceback

import draughts
from draughts.engine import HubEngine, Limit


class Complaints(logging.Handler):
    """Collects pydraughts' warnings, such as 'Unexpected engine response to go: ...'."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


# Kroon's Hub variant name -> pydraughts' name.
VARIANTS = {
    "normal": "standard",
    "frisian": "frisian",
    "losing": "antidraughts",
    "bt": "breakthrough",
    "russian": "russian",
    "brazilian": "brazilian",
    "english": "english",
}


def limit_for(ply, depth):
    """Mostly a fixed depth (fast and repeatable); now and then the other Hub level forms."""
    if ply % 10 == 3:
        return Limit(movetime=0.02)
    if ply % 10 == 7:
        return Limit(time=5.0, inc=0.01)  # pydraughts sends `level time=4.99 inc=0.01`
    if ply % 10 == 9:
        return Limit(nodes=2000)
    return Limit(depth=depth)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kroon")
    ap.add_argument("--variant", default="normal", choices=sorted(VARIANTS))
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--timeout", type=int, default=120, help="abort the whole run after this many seconds")
    args = ap.parse_args()

    # A hang must fail, not block: pydraughts reads without timeouts.
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("run took too long")))
    signal.alarm(args.timeout)

    complaints = Complaints()
    logging.getLogger("pydraughts").addHandler(complaints)

    # pydraughts resolves command[0] against the cwd, so the path must be absolute.
    eng = HubEngine([os.path.abspath(args.kroon), "hub"])
    problems = []
    t0 = time.perf_counter()
    try:
        if eng.id.get("name") != "Kroon":
            problems.append(f"id name is {eng.id.get('name')!r}")
        for name in ("variant", "threads", "hash", "ponder"):
            if name not in eng.options:
                problems.append(f"param {name} not declared (got {sorted(eng.options)})")
        if "normal" not in eng.variants:
            problems.append(f"variant values {sorted(eng.variants)} lack 'normal'")
        eng.setoption("hash", 16)
        eng.setoption("threads", 1)
        eng.setoption("variant", args.variant)
        eng.init()
        eng.ping()

        board = draughts.Board(VARIANTS[args.variant])
        while not board.is_over() and len(board.move_stack) < args.max_plies:
            ply = len(board.move_stack)
            legal = {m.hub_position_move: m for m in board.legal_moves()}
            res = eng.play(board, limit_for(ply, args.depth), ponder=False)
            key = res.move.hub_position_move
            if key not in legal:
                problems.append(f"ply {ply}: illegal move {res.move.hub_move} in {board.fen}")
                break
            board.push(res.move)
        eng.ping()
        plies = len(board.move_stack)
        natural = board.is_over()
        winner = {draughts.WHITE: "white", draughts.BLACK: "black", 0: "draw", None: "unfinished"}[board.winner()]
        print(f"game over: {winner} after {plies} plies"
              + ("" if natural else f" (stopped at the cap of {args.max_plies} plies)"))
        print("moves:", " ".join(m.pdn_move for m in board.move_stack))
        print(f"last info: {eng.info}")
        eng.quit()
        try:
            eng.p.wait(timeout=5)
        except Exception:
            problems.append("kroon did not exit within 5 s of quit")
    except Exception:
        problems.append(traceback.format_exc())
    finally:
        signal.alarm(0)
        if eng.p.poll() is None:
            eng.kill_process()
        for pipe in (eng.p.stdin, eng.p.stdout):
            try:
                pipe.close()
            except Exception:
                pass

    problems.extend(f"pydraughts complained: {c}" for c in complaints.records)
    print(f"{time.perf_counter() - t0:.1f} s")
    if problems:
        print("PROBLEMS:", *problems, sep="\n", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
