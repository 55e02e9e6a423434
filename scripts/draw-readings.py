#!/usr/bin/env python3
"""Three readings of the FMJD endgame counts (6.3 and 6.4) side by side, on games as played.

For each game (a start position and its moves) it prints the ply at which each reading first
calls the game drawn:
- pydraughts: pydraughts' Board (consecutive king moves without capture, by the material now);
- restart: plies since the material configuration arose, restarted at every change of it
  (a capture or a promotion);
- Kroon: its reading (docs/draw-rules.md), computed here by the same rules; the rules crate's
  test `kroon_reading_of_two_played_endings` (crates/rules/tests/fmjd.rs) asserts the same plies
  on Kroon's own Game.
Needs pydraughts (pip install pydraughts==0.6.7).
"""
from draughts import Board, Move

LONG_DIAGONAL = {5, 10, 14, 19, 23, 28, 32, 37, 41, 46}

GAMES = [
    ("W:W6,K21,35:BK25",
     "21-12 25-43 12-3 43-16 3-25 16-7 25-30 7-18 30-24 18-34 24-13 34-43 13-22 43-34 22-11 "
     "34-25 11-17 25-34 17-22 34-7 6-1 7-16 22-13 16-43 35-30 43x25 13-2 25-39 1-6 39-34 6-50 "
     "34-45 2-7 45x1 50-39 1-6 39-43 6-1 43-30 1-45 30-2 45-40 2-7 40x1"),
    ("W:WK43:B1,24,K48",
     "43-38 24-30 38-49 30-35 49-16 48-26 16-49 26-17 49-16 17-22 16-43 22-28 43-21 35-40 21-49 "
     "28-44 49-43 40-45 43-16 44-49 16-2 45-50 2-8 49-35 8-21 50-17 21x12 35-49 12-34 49-21 "
     "34-39 1-7 39-34 21-12 34-45 7-11 45x16"),
]


def pieces(fen):
    """{square: (colour, king)} from a pydraughts FEN."""
    out = {}
    turn, *sides = fen.split(":")
    for side in sides:
        colour = side[0]
        for item in filter(None, side[1:].split(",")):
            king = item.startswith("K")
            out[int(item.lstrip("K"))] = (colour, king)
    return out


def rule(fen):
    """'16', 'diag' (6.3, lone king alone on the long diagonal), '5' or None."""
    p = pieces(fen)
    for weak in "WB":
        mine = [s for s, (c, _) in p.items() if c == weak]
        if len(mine) != 1 or not p[mine[0]][1]:
            continue
        strong = [(s, k) for s, (c, k) in p.items() if c != weak]
        kings = sum(k for _, k in strong)
        if kings == 0:
            return None
        if len(strong) == 3:
            alone = mine[0] in LONG_DIAGONAL and not any(s in LONG_DIAGONAL for s, _ in strong)
            return "diag" if alone else "16"
        if len(strong) <= 2:
            return "5"
    return None


def config(fen):
    p = pieces(fen)
    return tuple(sorted((c, k) for c, k in p.values()))


def readings(start, moves):
    board = Board(variant="standard", fen=start)
    fens = [board.fen]
    pyd = None
    for i, text in enumerate(moves.split(), 1):
        board.push(Move(board, pdn_move=text))
        fens.append(board.fen)
        if pyd is None and board._game.is_draw():
            pyd = i
    # Plain restart at each change of configuration.
    restart, since = None, 0
    for i in range(1, len(fens)):
        since = since + 1 if config(fens[i]) == config(fens[i - 1]) else 0
        r = rule(fens[i])
        limit = {"16": 32, "diag": 10, "5": 10}.get(r)
        if restart is None and limit and since >= limit:
            restart = i
    # Kroon: counts start at 0 where a configuration arises; the 16-move maximum outlives captures
    # and promotions; a 5-move count (6.4, or the long diagonal) goes on through promotions and
    # captures inside 6.4.
    kroon, rule_now, rule_plies, sixteen = None, rule(fens[0]), 0, None
    if rule_now in ("16", "diag"):
        sixteen = 0
    for i in range(1, len(fens)):
        r = rule(fens[i])
        capture = "x" in moves.split()[i - 1]
        same = r is not None and r == rule_now and (not capture or r in ("16", "diag", "5"))
        rule_plies = rule_plies + 1 if same else 0
        if r in ("16", "diag", "5"):
            sixteen = sixteen + 1 if sixteen is not None else (0 if r != "5" else None)
        else:
            sixteen = None
        rule_now = r
        over = (sixteen is not None and sixteen >= 32) or (
            r in ("diag", "5") and rule_plies >= 10) or (r == "16" and rule_plies >= 32)
        if kroon is None and over:
            kroon = i
    return pyd, restart, kroon, len(fens) - 1


def main():
    print(f"{'start':<20} {'plies':>5} {'pydraughts':>10} {'restart':>8} {'Kroon':>6}")
    for start, moves in GAMES:
        pyd, restart, kroon, n = readings(start, moves)
        print(f"{start:<20} {n:>5} {str(pyd):>10} {str(restart):>8} {str(kroon):>6}")


if __name__ == "__main__":
    main()
