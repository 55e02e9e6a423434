#!/usr/bin/env python3
"""Prints the lines of the opening book as `kroon match --openings` PDN lines: every line of book
moves, each within MARGIN men of the best book move, that reaches PLY plies and ends in a book
position (lines through a capture are left out). Needs pydraughts (to play the moves) and a kroon
binary (KROON, default target/release/kroon).

usage: scripts/book-lines.py PLY MARGIN
"""
import os
import subprocess
import sys

from draughts import Board, Move

KROON = os.environ.get("KROON", "target/release/kroon")


def probe(fen):
    out = subprocess.run([KROON, "book", "probe", "--fen", fen],
                         capture_output=True, text=True, check=True).stdout
    moves = []
    for line in out.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] != "not":
            moves.append((words[0], float(words[1])))
    return moves


def walk(board, moves, ply, depth, margin, out):
    book = probe(board.fen)
    if not book:
        return
    if ply == depth:
        out.append(moves)
        return
    best = book[0][1]
    for mv, score in book:
        if score < best - margin or "x" in mv:
            continue
        child = board.copy()
        child.push(Move(child, pdn_move=mv))
        walk(child, moves + [mv], ply + 1, depth, margin, out)


def main():
    depth, margin = int(sys.argv[1]), float(sys.argv[2])
    lines = []
    walk(Board(variant="standard"), [], 0, depth, margin, lines)
    for moves in lines:
        words = []
        for i, mv in enumerate(moves):
            if i % 2 == 0:
                words.append(f"{i // 2 + 1}.")
            words.append(mv)
        print(" ".join(words) + " *")


if __name__ == "__main__":
    main()
