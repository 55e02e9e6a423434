#!/usr/bin/env python3
"""The calls pydraughts' own engine test suite makes on a Hub engine (its `test_engines`, which
runs them against Scan 3.1; the suite is not in the pydraughts wheel), made here on Kroon through
pydraughts 0.6.7's HubEngine, with the answers checked as that suite's client code reads them:

- the handshake, `ping`, and `set-param` of `book` on and off;
- a search started with `go ponder` (from a thread, as the suite does) and turned into a normal
  search by `ponder-hit`: it must end by itself within its one-second clock;
- `go` from `pos=startpos` with one move played, under a clock with increment and moves to go,
  then without increment (pydraughts' own spelling of the start position);
- a search with depth, nodes and move time all given (pydraughts sends only `move-time=10`),
  a `stop` sent when no search runs, then a search of another position: the answer must be
  that position's move, not a stale one;
- every move legal by pydraughts' rules; any unexpected line pydraughts logs is a failure.

usage: hub_pydraughts_engine_suite.py KROON
Exits 0 when every step passed, 1 otherwise (a hang fails through an alarm).
"""

import logging
import os
import signal
import sys
import threading
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


def legal(board, hub_move):
    return hub_move in {m.hub_move for m in board.legal_moves()}


def main():
    kroon = os.path.abspath(sys.argv[1])
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("run took too long")))
    signal.alarm(90)
    complaints = Complaints()
    logging.getLogger("pydraughts").addHandler(complaints)
    problems = []

    eng = HubEngine([kroon, "hub"])
    # The ponder step must send `ponder-hit` after `go ponder`, not before: watch what is sent.
    ponder_sent = threading.Event()
    send = eng.send

    def watched_send(line):
        send(line)
        if line == "go ponder":
            ponder_sent.set()

    eng.send = watched_send
    try:
        eng.setoption("threads", 1)
        eng.setoption("hash", 16)
        eng.init()
        eng.ping()
        eng.setoption("book", True)
        eng.setoption("book", False)
        eng.ping()

        # Pondering, then the hit: the search runs on the one-second clock and answers.
        results = []
        board = draughts.Board()
        thread = threading.Thread(target=lambda: results.append(eng.play(board, Limit(time=1), True)))
        t0 = time.monotonic()
        thread.start()
        if not ponder_sent.wait(10):
            problems.append("go ponder was never sent")
        eng.ponderhit()
        thread.join(20)
        if thread.is_alive():
            problems.append("the search after ponder-hit did not end within 20 s")
            raise SystemExit(1)
        took = time.monotonic() - t0
        print(f"ponder then ponder-hit: {results[0].move.hub_move} after {took:.2f} s")
        if not legal(board, results[0].move.hub_move):
            problems.append(f"ponder-hit answer {results[0].move.hub_move} is illegal")

        # `pos=startpos` with a move, under two clocks.
        after = draughts.Board()
        after.push(draughts.Move(after, hub_move="35-30"))
        for kwargs in ({"my_time": 30, "inc": 2, "moves_left": 40}, {"my_time": 30, "moves_left": 40}):
            best, ponder = eng.go("startpos", "35-30", **kwargs)
            print(f"go startpos 35-30 {kwargs}: {best} (ponder {ponder})")
            if not legal(after, best):
                problems.append(f"{kwargs}: {best} is not a legal reply to 35-30")

        # All limits given at once, an idle stop, then another position.
        for fen in ("W:W22:B9,18", "B:W22:B18"):
            board = draughts.Board(fen=fen)
            res = eng.play(board, Limit(depth=15, nodes=10000, movetime=10), False)
            print(f"{fen}: {res.move.hub_move}")
            if not legal(board, res.move.hub_move):
                problems.append(f"{fen}: {res.move.hub_move} is illegal there")
            time.sleep(0.01)
            eng.stop()
        eng.ping()
    except SystemExit:
        pass
    except Exception:
        problems.append(traceback.format_exc())
    finally:
        signal.alarm(0)
        eng.kill_process()

    problems.extend(f"pydraughts complained: {c}" for c in complaints.records)
    if problems:
        print("PROBLEMS:", *problems, sep="\n", file=sys.stderr)
        return 1
    print("pydraughts' engine-suite calls: all answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
