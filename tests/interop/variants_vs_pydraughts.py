#!/usr/bin/env python3
"""Compares Kroon's legal moves with pydraughts' in every variant both know.

Variants (Kroon name = pydraughts name): normal = standard, frisian, losing = antidraughts,
bt = breakthrough, russian, brazilian, english. pydraughts has no killer draughts.

Positions come from seeded random games (half of them preferring the longest capture now and then,
which reaches kings and long king captures) and from random placements with kings. Moves are compared
as sets of (from, to, sorted captured fields) in Kroon's numbering: pydraughts lists one move per
capture path, so its moves are grouped first. Kroon's answer must also hold no move twice.

Numbering. Comparisons are made in Kroon's own field numbers (those of the Hub protocol), which the
10x10 variants share with pydraughts. pydraughts writes Russian and Brazilian FENs algebraically and
numbers their moves its own way; both go through the algebraic square (Kroon's field = row * 4 +
column // 2 + 1, row = 8 - rank, field 1 = b8), and `kroon moves` answers algebraically there too.
In English, pydraughts' first mover is its White on 21-32, as Kroon's is; `kroon moves` reads and
writes the English names (the first mover is Black on 1-12, square 33 - field), so its FENs and
moves are turned round on the way. pydraughts reads the FIRST piece list of a FEN as White, so FENs
go White first.

Frisian. pydraughts applies the limit on quiet king moves from the game's history; `kroon moves`
reads bare FENs, so each position is asked of a fresh pydraughts board, without history. (The limit
is compared along whole games by tests/interop_variants_pydraughts.rs, which replays the games of
`--histories` in every variant with Kroon's `Game`.) pydraughts also counts a king as 1.501 men in
the capture precedence, where Scan and dctl count it as just under two men (64 and 126 in Scan's
list.cpp): they disagree from three captured kings on. In W:WK11,50:B7,9,16,20,K28,K39,40,K42 Scan's
rule takes 11x41x28x39x42 (three kings), pydraughts 50x26 (five men). Worse, pydraughts adds those
1.501s in the order of the capture path and keeps only the exact float maximum, so two captures of
the same value can differ (1+1+1.501+1+1.501 = 6.001999999999999, 1+1.501+1+1+1.501 = 6.002) and it
drops legal moves: in W:WK3,K15,K20,25,35,40,42:B12,17,K27,30,37,K45,K48 kings 15 and 20 both take
12,17,27,37,48 but pydraughts keeps only the moves of 20. So Kroon is compared with pydraughts'
capture sequences (`Game.get_moves`) under Scan's precedence, and positions where pydraughts' own
choice differs are counted and shown apart, not failed.

usage: variants_vs_pydraughts.py KROON [--variants a,b] [--games N] [--placements N] [--seed S]
       variants_vs_pydraughts.py --histories N [--variants a,b] [--seed S]   (game records on
       stdout, N per variant, replayed by tests/interop_variants_pydraughts.rs)
Exit status 1 on any difference.
"""
import argparse
import random
import string
import re
import subprocess
import sys

from draughts import Board
from draughts.convert import _numeric_to_algebraic_square

# Kroon's variant name -> (pydraughts' name, board size).
VARIANTS = {
    "normal": ("standard", 10),
    "frisian": ("frisian", 10),
    "losing": ("antidraughts", 10),
    "bt": ("breakthrough", 10),
    "russian": ("russian", 8),
    "brazilian": ("brazilian", 8),
    "english": ("english", 8),
}
ALGEBRAIC = {"russian", "brazilian"}


# --- numbering -------------------------------------------------------------------------------

def field_of_algebraic(sq):
    col = string.ascii_lowercase.index(sq[0])
    row = 8 - int(sq[1:])
    return row * 4 + col // 2 + 1


def algebraic_of_field(f):
    row, i = divmod(f - 1, 4)
    col = 2 * i + (1 if row % 2 == 0 else 0)
    return string.ascii_lowercase[col] + str(8 - row)


def to_kroon(variant, n):
    """A square of a pydraughts move (its own numbering) as Kroon's field."""
    if variant in ALGEBRAIC:
        return field_of_algebraic(_numeric_to_algebraic_square(str(n), 4))
    return n


def kroon_fen(variant, fen):
    """pydraughts' FEN of a board as Kroon's FEN."""
    turn, white, black = fen.split(":")

    def conv(lst):
        out = []
        for x in lst[1:].split(","):
            if not x:
                continue
            king = x.startswith("K")
            x = x.lstrip("K")
            f = field_of_algebraic(x) if variant in ALGEBRAIC else int(x)
            out.append((f, king))
        return ",".join(("K" if k else "") + str(f) for f, k in sorted(out))

    return english_names(variant, f"{turn}:W{conv(white)}:B{conv(black)}")


def english_names(variant, fen):
    """A FEN in Kroon's fields as English players write it: the first mover (Kroon's White, at the
    bottom) is Black on 1-12, so colours swap and square f is 33 - f. Other variants: unchanged."""
    if variant != "english":
        return fen
    turn, white, black = fen.split(":")
    turned = lambda lst: ",".join(("K" if x.startswith("K") else "") + str(33 - int(x.lstrip("K")))
                                  for x in lst[1:].split(",") if x)
    return f"{'B' if turn == 'W' else 'W'}:W{turned(black)}:B{turned(white)}"


def pydraughts_fen(variant, turn, white, black):
    """A FEN pydraughts reads (White's list first) from Kroon fields: lists of (field, king)."""
    sq = algebraic_of_field if variant in ALGEBRAIC else str
    lst = lambda pieces: ",".join(("K" if k else "") + sq(f) for f, k in pieces)
    return f"{turn}:W{lst(white)}:B{lst(black)}"


def key(variant, steps, captures):
    return (to_kroon(variant, steps[0]), to_kroon(variant, steps[-1]),
            tuple(sorted(to_kroon(variant, c) for c in captures)))


def grouped(variant, board):
    """pydraughts' legal moves of `board`, one per (from, to, captured set), with a Move for each."""
    groups = {}
    for m in board.legal_moves():
        groups.setdefault(key(variant, m.steps_move, m.captures), m)
    return groups


# --- Frisian precedence as Scan and dctl define it ---------------------------------------------

def frisian_scan_rule(board, man=64, king=126):
    """The Frisian moves of a fresh pydraughts board under Scan's precedence: pydraughts' capture
    sequences (`Game.get_moves`, before its own precedence), the highest of 64 per man + 126 per
    king taken, then a capture by a king before one by a man. Fields are Kroon's (the same).
    With man=1000, king=1501: pydraughts' own rule in exact arithmetic."""
    game = board._game
    moves, captures = game.get_moves()
    piece = game.board.searcher.get_piece_by_position
    if not moves or captures[0][0] is None:
        return {(m[0][0], m[-1][1], ()) for m in moves}
    best, out = -1, set()
    for m, caps in zip(moves, captures):
        value = 2 * sum(king if piece(c).king else man for c in caps) + piece(m[0][0]).king
        k = (m[0][0], m[-1][1], tuple(sorted(caps)))
        if value > best:
            best, out = value, {k}
        elif value == best:
            out.add(k)
    return out


# --- positions ---------------------------------------------------------------------------------

class Case:
    def __init__(self, fen, want, pydraughts_own=None):
        self.fen = fen                # Kroon's FEN
        self.want = want              # the expected set
        self.own = pydraughts_own     # pydraughts' own set when it differs (Frisian precedence)
        self.float_order = False      # ... and the difference comes from its float sums


def expected(variant, pyname, fen_for_pydraughts):
    """The expected set for a position, asked of a fresh board; None if pydraughts refuses it."""
    try:
        board = Board(pyname, fen_for_pydraughts)
        own = set(grouped(variant, board))
    except Exception:  # pydraughts rejects some placements (and crashes on a few); skip them
        return None
    if variant == "frisian":
        scan = frisian_scan_rule(board)
        case = Case(None, scan, own if own != scan else None)
        # pydraughts' rule done exactly: a difference left over is its float summation.
        case.float_order = own != frisian_scan_rule(board, 1000, 1501)
        return case
    return Case(None, own)


def from_games(variant, count, rng):
    pyname, _ = VARIANTS[variant]
    cases = []
    while len(cases) < count:
        board = Board(pyname)
        greedy = rng.random() < 0.5
        while not board.is_over() and len(board.move_stack) < 200 and len(cases) < count:
            case = expected(variant, pyname, board.fen)
            if case is not None:
                case.fen = kroon_fen(variant, board.fen)
                cases.append(case)
            groups = grouped(variant, board)
            if not groups:
                break
            keys = sorted(groups)
            if greedy and rng.random() < 0.3:
                keys = sorted(keys, key=lambda k: -len(k[2]))[:1]
            board.push(groups[rng.choice(keys)])
    return cases


def from_placements(variant, count, rng):
    pyname, size = VARIANTS[variant]
    fields = size * size // 2
    row = size // 2
    cases = []
    while len(cases) < count:
        squares = rng.sample(range(1, fields + 1), rng.randint(3, 16))
        white, black = [], []
        for f in squares:
            is_white = rng.random() < 0.5
            # Breakthrough ends at the first king, so its positions have none.
            king = variant != "bt" and rng.random() < 0.4
            last_row = f <= row if is_white else f > fields - row
            if last_row and not king:
                if variant == "bt":
                    continue
                king = True
            (white if is_white else black).append((f, king))
        if not white or not black:
            continue
        turn = rng.choice("WB")
        white.sort()
        black.sort()
        kroon = f"{turn}:W" + ",".join(("K" if k else "") + str(f) for f, k in white) + \
                ":B" + ",".join(("K" if k else "") + str(f) for f, k in black)
        case = expected(variant, pyname, pydraughts_fen(variant, turn, white, black))
        if case is None:
            continue
        case.fen = english_names(variant, kroon)
        cases.append(case)
    return cases


# --- comparison --------------------------------------------------------------------------------

def kroon_move(variant, text):
    """A move as `kroon moves` writes it (`32-28`, `28x19x23`; `c3-d4`, `c3:e5:d4` in Russian and
    Brazilian; English squares turned round) as (from, to, captured fields) in Kroon's fields."""
    capture = "x" in text or ":" in text
    f = [field_of_algebraic(x) if x[0].isalpha() else int(x) for x in re.split("[x:-]", text)]
    if variant == "english":
        f = [33 - x for x in f]
    if capture:
        return (f[0], f[1], tuple(sorted(f[2:])))
    return (f[0], f[1], ())


def compare(kroon, variant, cases):
    out = subprocess.run([kroon, "moves", "--batch", "--variant", variant],
                         input="".join(c.fen + "\n" for c in cases),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    if len(out) != len(cases):
        print(f"{variant}: kroon answered {len(out)} lines for {len(cases)} positions")
        return len(cases), 0
    bad = precedence = float_order = 0
    captures = kings = 0
    for case, line in zip(cases, out):
        listed = [kroon_move(variant, t) for t in line.split()] if not line.startswith("error") else [line]
        got = set(listed)
        captures += any(k[2] for k in case.want)
        kings += "K" in case.fen
        if got != case.want or len(listed) != len(got):
            bad += 1
            if bad <= 5:
                print(f"MISMATCH {variant} {case.fen}\n  only kroon: {sorted(got - case.want)}\n"
                      f"  only pydraughts: {sorted(case.want - got)}\n  listed twice: {len(listed) - len(got)}")
        if case.own is not None:
            precedence += 1
            order = case.float_order
            float_order += order
            if precedence <= 3:
                why = "float sum depends on capture order" if order else "a king counted as 1.501 men"
                print(f"NOTE {variant}: pydraughts' precedence differs ({why}): {case.fen}\n"
                      f"  Scan/dctl/Kroon: {sorted(case.want)}\n  pydraughts: {sorted(case.own)}")
    note = (f", {precedence} where pydraughts' own precedence differs ({float_order} by float"
            f" summation order)") if variant == "frisian" else ""
    print(f"{variant}: {len(cases)} positions ({captures} with captures, {kings} with kings): "
          f"{bad} differ{note}")
    return bad, precedence


# --- Frisian histories: the king-move limit -----------------------------------------------------

def histories(variant, count, rng):
    """`count` positions inside random games of `variant`, as `variant|start|moves|legal`: Kroon's
    start FEN, the moves played (long notation, Kroon's fields) and pydraughts' legal moves then.
    Replaying the moves checks what a FEN cannot: the state a move leaves behind (a man crowned in
    the middle of a Russian capture is a king where it stops) and, in Frisian, the king-move limit.
    Games start from the initial position and prefer long captures now and then, as in
    `from_games`; one position in five is kept."""
    if variant == "frisian":
        return frisian_histories(count, rng)
    pyname, _ = VARIANTS[variant]
    lines = []
    while len(lines) < count:
        board = Board(pyname)
        start = kroon_fen(variant, board.fen)
        played = []
        greedy = rng.random() < 0.5
        while not board.is_over() and len(played) < 200 and len(lines) < count:
            groups = grouped(variant, board)
            if not groups:
                break
            if rng.random() < 0.2:
                legal = " ".join(sorted(long(k) for k in groups))
                lines.append(f"{variant}|{start}|{' '.join(played)}|{legal}")
            keys = sorted(groups)
            if greedy and rng.random() < 0.3:
                keys = sorted(keys, key=lambda k: -len(k[2]))[:1]
            k = rng.choice(keys)
            played.append(long(k))
            board.push(groups[k])
    return lines


def frisian_histories(count, rng):
    """Frisian positions inside random games, as `frisian|start|moves|legal`, where pydraughts'
    legal moves follow the limit on quiet king moves.
    Games start from random placements where both sides have kings and men, and favour quiet moves
    of the king a side moved last, so that runs of three come often. The positions after a run of
    three quiet moves by one king are kept, and a few others; positions where
    pydraughts' precedence differs from Scan's are left out."""
    lines, limited = [], 0
    while len(lines) < count:
        start = frisian_start(rng)
        board = Board("frisian", start)
        played = []
        while not board.is_over() and len(played) < 40 and len(lines) < count:
            groups = grouped("frisian", board)
            if not groups:
                break
            if run_of_three(played, board) or rng.random() < 0.03:
                fresh = Board("frisian", board.fen)
                scan = frisian_scan_rule(fresh)
                if set(grouped("frisian", fresh)) == scan:
                    # The limit removes quiet moves of one king: the in-game set against the fresh one.
                    bites = set(groups) != scan
                    limited += bites
                    legal = " ".join(sorted(long(k) for k in groups))
                    lines.append(f"frisian|{start}|{' '.join(played)}|{legal}")
            # Prefer quiet moves of the king this side moved last, then of any king.
            keys = sorted(groups)
            kings = [k for k in keys if not k[2] and is_king(board, k[0])]
            mine = played[-2].split("-")[-1] if len(played) >= 2 else None
            same = [k for k in kings if str(k[0]) == mine]
            if same and rng.random() < 0.9:
                keys = same
            elif kings and rng.random() < 0.8:
                keys = kings
            k = rng.choice(keys)
            played.append(long(k))
            board.push(groups[k])
    print(f"# {len(lines)} positions, {limited} where the king-move limit removes moves",
          file=sys.stderr)
    return lines


def run_of_three(played, board):
    """Whether the side to move made its last three moves quietly with one piece, now a king."""
    own = played[-2:-7:-2]
    if len(own) < 3 or any("-" not in m for m in own):
        return False
    steps = [m.split("-") for m in reversed(own)]
    chained = all(a[1] == b[0] for a, b in zip(steps, steps[1:]))
    return chained and is_king(board, int(steps[-1][1]))


def frisian_start(rng):
    """A random Frisian start (Kroon's FEN, which pydraughts reads too): each side has a king or
    two and a few men in its own half, and the side to move has no capture."""
    while True:
        white_men = rng.sample(range(31, 51), rng.randint(4, 8))
        black_men = rng.sample(range(1, 21), rng.randint(4, 8))
        free = [f for f in range(1, 51) if f not in white_men + black_men]
        kings = rng.sample(free, rng.randint(2, 3))
        half = len(kings) // 2
        white = sorted([(f, False) for f in white_men] + [(f, True) for f in kings[:half]])
        black = sorted([(f, False) for f in black_men] + [(f, True) for f in kings[half:]])
        fen = pydraughts_fen("frisian", rng.choice("WB"), white, black)
        if not any(k[2] for k in grouped("frisian", Board("frisian", fen))):
            return fen


def is_king(board, field):
    piece = board._game.board.searcher.position_pieces.get(field)
    return piece is not None and piece.king


def long(k):
    if k[2]:
        return "x".join(str(f) for f in (k[0], k[1]) + k[2])
    return f"{k[0]}-{k[1]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kroon", nargs="?")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--games", type=int, default=1000, help="positions from games, per variant")
    ap.add_argument("--placements", type=int, default=1000, help="random placements, per variant")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--histories", type=int,
                    help="print this many game records per variant instead (for the Rust test)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.histories is not None:
        for variant in args.variants.split(","):
            print("\n".join(histories(variant, args.histories, rng)))
        return 0
    if not args.kroon:
        ap.error("the kroon binary is needed")
    total = 0
    for variant in args.variants.split(","):
        if variant not in VARIANTS:
            ap.error(f"unknown variant {variant}; known: {', '.join(VARIANTS)} (pydraughts has no killer)")
        cases = from_games(variant, args.games, rng) + from_placements(variant, args.placements, rng)
        bad, _ = compare(args.kroon, variant, cases)
        total += bad
    print(f"all variants: {total} differ")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
