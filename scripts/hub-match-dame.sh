#!/usr/bin/env bash
# A Hub match: Kroon (`kroon hub`) against dame-rs (`dame hub`), both driven by pydraughts'
# HubEngine, which also keeps the board and checks every move against its own rules.
#
# usage: scripts/hub-match-dame.sh [-n GAMES] [-t SECONDS_PER_MOVE] [-p MAX_PLIES]
#   -n  games to play (default 10); openings are taken in turn, each played with both colours
#   -t  thinking time per move in seconds, sent as `level move-time=T` (default 0.1)
#   -p  plies after which an unfinished game is scored a draw (default 300)
# Environment: KROON (default: target/release/kroon, built if missing), DAME (default: `dame` on PATH).
#
# Prints one line per game and a summary: W/D/L from Kroon's side, then every protocol problem
# (a crash, an illegal or unreadable move, a line pydraughts did not expect, a move far over time).
# Results are in draughts points (2-0, 1-1, 0-2). dame ends a game with a bare `done` when it
# judges it drawn by the FMJD endgame rules before pydraughts does; that is scored a draw and
# listed as a note, not a problem. Exits 1 when there was a protocol problem, 0 otherwise.
set -euo pipefail

cd "$(dirname "$0")/.."
games=10
movetime=0.1
max_plies=300
while getopts "n:t:p:h" opt; do
    case $opt in
        n) games=$OPTARG ;;
        t) movetime=$OPTARG ;;
        p) max_plies=$OPTARG ;;
        *) sed -n '2,15p' "$0"; exit 2 ;;
    esac
done

kroon=${KROON:-target/release/kroon}
if [[ -z ${KROON:-} && ! -x $kroon ]]; then
    cargo build --release -p kroon >&2
fi
dame=${DAME:-$(command -v dame || true)}
[[ -x $kroon ]] || { echo "no kroon binary at $kroon" >&2; exit 2; }
[[ -n $dame ]] || { echo "dame not found: install dame-rs or set DAME" >&2; exit 2; }
python3 -c "import draughts" 2>/dev/null || { echo "python3 with pydraughts is needed" >&2; exit 2; }

exec python3 - "$(realpath "$kroon")" "$(realpath "$dame")" "$games" "$movetime" "$max_plies" <<'PY'
import collections, logging, signal, sys, time, traceback
import draughts
from draughts.engine import HubEngine, Limit


class Engine(HubEngine):
    """HubEngine that remembers the last lines on the wire, for the problem report."""
    def __init__(self, *args, **kwargs):
        self.wire = collections.deque(maxlen=6)
        super().__init__(*args, **kwargs)
    def send(self, line):
        self.wire.append("> " + line)
        super().send(line)
    def recv(self):
        line = super().recv()
        if not line.startswith("info"):
            self.wire.append("< " + line)
        return line
    def tail(self):
        return "\n      ".join(w if len(w) < 300 else w[:150] + " ... " + w[-140:] for w in self.wire)

kroon_path, dame_path = sys.argv[1], sys.argv[2]
games, movetime, max_plies = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])

# Short balanced openings (Hub notation), each played once with each colour.
OPENINGS = [
    [],
    ["32-28", "19-23"],
    ["33-28", "18-23"],
    ["31-27", "17-21"],
    ["34-29", "20-24"],
    ["32-27", "19-24"],
    ["33-29", "17-22"],
    ["35-30", "20-25"],
]

class Complaints(logging.Handler):
    """pydraughts logs a warning for every engine line it did not expect."""
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []
    def emit(self, record):
        self.records.append(record.getMessage())

complaints = Complaints()
logging.getLogger("pydraughts").addHandler(complaints)

class Hang(Exception):
    pass

def on_alarm(*_):
    raise Hang("no answer in time")

signal.signal(signal.SIGALRM, on_alarm)

def start(name, path):
    signal.alarm(20)
    try:
        eng = Engine([path, "hub"])
        eng.setoption("hash", 64)
        eng.init()
        return eng
    finally:
        signal.alarm(0)

def stop(eng):
    try:
        eng.quit()
        eng.p.wait(timeout=3)
    except Exception:
        pass
    if eng.p.poll() is None:
        eng.kill_process()
    for pipe in (eng.p.stdin, eng.p.stdout):
        try:
            pipe.close()
        except Exception:
            pass

problems = []
notes = []
engines = {"kroon": None, "dame": None}
paths = {"kroon": kroon_path, "dame": dame_path}
score = {"W": 0, "D": 0, "L": 0}
t_start = time.perf_counter()

for g in range(games):
    opening = OPENINGS[(g // 2) % len(OPENINGS)]
    kroon_white = g % 2 == 0
    colour_of = {"kroon": draughts.WHITE if kroon_white else draughts.BLACK}
    colour_of["dame"] = draughts.BLACK if kroon_white else draughts.WHITE
    for name in engines:
        if engines[name] is None:
            try:
                engines[name] = start(name, paths[name])
            except Exception as e:
                problems.append(f"game {g + 1}: {name} did not start: {e!r}")
    if any(e is None for e in engines.values()):
        break
    for eng in engines.values():
        eng.send("new-game")

    board = draughts.Board("standard")
    for text in opening:
        board.push(draughts.Move(board, hub_move=text))
    forfeit = None   # name of the engine that broke the protocol
    claim = None     # name of the engine that said the game is over when pydraughts did not
    slow = 0
    while not board.is_over() and len(board.move_stack) < max_plies:
        name = "kroon" if board.turn == colour_of["kroon"] else "dame"
        eng = engines[name]
        legal = {m.hub_position_move for m in board.legal_moves()}
        heard = len(complaints.records)
        t = time.perf_counter()
        signal.alarm(int(movetime * 20) + 10)
        try:
            res = eng.play(board, Limit(movetime=movetime), ponder=False)
        except Exception as e:
            if eng.wire and eng.wire[-1] == "< done":
                # A bare `done`: the engine says the game is over, though pydraughts does not (dame
                # applies the FMJD 16- and 5-move endgame draws, which pydraughts may count otherwise).
                claim = name
                if name == "kroon":  # Kroon sends a bare done only without a legal move
                    problems.append(f"game {g + 1}, ply {len(board.move_stack)}: kroon answered a"
                                    f" bare 'done' in {board.fen}\n    wire:\n      {eng.tail()}")
                notes.append(f"game {g + 1}, ply {len(board.move_stack)}: {name} answered a bare"
                             f" 'done' (claims the game is over) in {board.fen}")
                break
            detail = "".join(traceback.format_exception_only(type(e), e)).strip()
            problems.append(f"game {g + 1}, ply {len(board.move_stack)}: {name}: {detail}\n"
                            f"    position {board.fen}\n    wire:\n      {eng.tail()}")
            forfeit = name
            break
        finally:
            signal.alarm(0)
        took = time.perf_counter() - t
        for c in complaints.records[heard:]:
            problems.append(f"game {g + 1}, ply {len(board.move_stack)}: {name} said: {c}\n"
                            f"    position {board.fen}\n    wire:\n      {eng.tail()}")
        del complaints.records[heard:]
        if took > movetime + 0.5:
            slow += 1
            problems.append(f"game {g + 1}, ply {len(board.move_stack)}: {name} took {took:.2f} s")
        if res.move is None or res.move.hub_position_move not in legal:
            problems.append(f"game {g + 1}, ply {len(board.move_stack)}: {name} played an illegal move"
                            f" {getattr(res.move, 'hub_move', None)} in {board.fen}")
            forfeit = name
            break
        board.push(res.move)

    plies = len(board.move_stack)
    if forfeit:
        winner = colour_of["dame" if forfeit == "kroon" else "kroon"]
        how = f"{forfeit} forfeits"
        stop(engines[forfeit])
        engines[forfeit] = None
    elif claim:
        winner = 0
        how = f"{claim} claims the game is over: scored a draw"
    elif board.is_over():
        winner = board.winner()
        how = "game over"
    else:
        winner = 0
        how = f"adjudicated a draw at {max_plies} plies"
    if winner == 0:
        score["D"] += 1
        result = "1-1"
    elif winner == colour_of["kroon"]:
        score["W"] += 1
        result = "2-0" if kroon_white else "0-2"
    else:
        score["L"] += 1
        result = "0-2" if kroon_white else "2-0"
    white, black = ("kroon", "dame") if kroon_white else ("dame", "kroon")
    print(f"game {g + 1:2}: {white} - {black} {result} ({how}, {plies} plies,"
          f" opening: {' '.join(opening) or 'start'})", flush=True)

for eng in engines.values():
    if eng is not None:
        stop(eng)

problems.extend(f"pydraughts: {c}" for c in complaints.records)
n = sum(score.values())
print(f"\nKroon vs dame over Hub, {n} games at {movetime} s/move:"
      f" +{score['W']} ={score['D']} -{score['L']}"
      f" ({(score['W'] + score['D'] / 2) / max(n, 1):.0%} for Kroon)"
      f" in {time.perf_counter() - t_start:.0f} s")
for n_ in notes:
    print("note: " + n_)
print(f"protocol problems: {len(problems)}")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY
