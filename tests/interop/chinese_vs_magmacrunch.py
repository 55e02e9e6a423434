#!/usr/bin/env python3
"""Legal moves of Kroon's Chinese checkers against magmacrunch-chinese-checkers' move generator.

Reads lines `POSITION<TAB>MOVES` on stdin: a Kroon position text and the moves Kroon lists for
the player to move (`from-to`, space separated). For each, it rebuilds the board in
magmacrunch's own cube coordinates and asks `chinese_checkers.rules.moves_for_piece` for every
piece of the player to move.

magmacrunch's rule differs in one point: a piece may hop only over *other* players' pieces. The
standard rule lets a piece hop over any piece. So every moving piece is given a player number
that no other piece has (6); then "other players' pieces" are all the other pieces, and its
generator computes the standard rule. Its chain search stops at holes it has visited, as the
standard rule says, and its moves are deduplicated here by destination as Kroon's are.

A line `perft<TAB>POSITION<TAB>DEPTH<TAB>COUNT` asks for a perft count instead, walked with the
same generator and the turn order of the position text's player field (no game ends that shallow).

Prints one line per difference and a summary `N positions, M differ`.
"""
import sys

from chinese_checkers import rules

ROWS = {}
for (q, r, s) in rules.POSITIONS:
    ROWS.setdefault(r, []).append((q, r, s))
for r in ROWS:
    ROWS[r].sort()


def hole_name(cube):
    q, r, s = cube
    row = ROWS[r]
    return "%s%d" % (chr(ord("a") + r + 8), row.index(cube) + 1)


def parse(text):
    fields = text.split()
    rows = fields[0].split("/")
    assert len(rows) == 17, text
    board = {}
    for k, row_text in enumerate(rows):
        r = 8 - k
        holes = ROWS[r]
        place = 0
        run = ""
        for ch in row_text + "/":
            if ch.isdigit():
                run += ch
                continue
            if run:
                place += int(run)
                run = ""
            if ch.isalpha():
                board[holes[place]] = ord(ch) - ord("A")
                place += 1
        assert place == len(holes), (text, r, place)
    return board, ord(fields[1]) - ord("A")


def oracle_moves(board, mover):
    cells = [rules.EMPTY] * len(rules.POSITIONS)
    for cube, camp in board.items():
        cells[rules.INDEX[cube]] = camp
    out = set()
    for cube, camp in board.items():
        if camp != mover:
            continue
        cells[rules.INDEX[cube]] = 6
        for mv in rules.moves_for_piece(cells, cube):
            out.add("%s-%s" % (hole_name(mv.frm), hole_name(mv.to)))
        cells[rules.INDEX[cube]] = camp
    return out


def perft(board, order, turn, depth):
    if depth == 0:
        return 1
    mover = order[turn % len(order)]
    moves = sorted(oracle_moves(board, mover))
    if depth == 1:
        return len(moves)
    total = 0
    for mv in moves:
        frm, to = mv.split("-")
        a, b = CUBE[frm], CUBE[to]
        del board[a]
        board[b] = mover
        total += perft(board, order, turn + 1, depth - 1)
        del board[b]
        board[a] = mover
    return total


CUBE = {hole_name(c): c for c in rules.POSITIONS}


def main():
    total = differ = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        if line.startswith("perft\t"):
            _, text, depth, count = line.split("\t")
            board, mover = parse(text)
            order = [ord(c) - ord("A") for c in text.split()[2]]
            got = perft(board, order, order.index(mover), int(depth))
            total += 1
            if got != int(count):
                differ += 1
                print("DIFF perft %s depth %s: kroon %s, magmacrunch %d" % (text, depth, count, got))
            continue
        text, _, moves = line.partition("\t")
        total += 1
        board, mover = parse(text)
        ours = set(moves.split())
        theirs = oracle_moves(board, mover)
        if ours != theirs:
            differ += 1
            print("DIFF %s\n  kroon only: %s\n  magmacrunch only: %s"
                  % (text, sorted(ours - theirs), sorted(theirs - ours)))
    print("%d positions, %d differ" % (total, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
