#!/usr/bin/env python3
"""Compares Kroon's legal moves with pydraughts' on positions from seeded random games.

pydraughts lists one move per capture path; moves are grouped by (from, to, captured set), the
FMJD identity of a move, before comparing. Exit status 1 on any difference.
usage: moves_vs_pydraughts.py KROON_BINARY [--positions N] [--seed S]
"""
import argparse
import random
import subprocess
import sys

from draughts import Board


def pydraughts_moves(board):
    return {(m.steps_move[0], m.steps_move[-1], tuple(sorted(m.captures))) for m in board.legal_moves()}


def kroon_move(text):
    if "x" in text:
        fields = [int(f) for f in text.split("x")]
        return (fields[0], fields[1], tuple(sorted(fields[2:])))
    a, b = text.split("-")
    return (int(a), int(b), ())


def collect(count, seed):
    rng = random.Random(seed)
    fens, expected = [], []
    while len(fens) < count:
        board = Board("standard", "W:W31-50:B1-20")
        # Random openings visit quiet middlegames; preferring captures now and then reaches kings and
        # long king captures sooner.
        greedy = rng.random() < 0.5
        while not board.is_over() and len(board.move_stack) < 250 and len(fens) < count:
            legal = board.legal_moves()
            groups = {}
            for m in legal:
                groups.setdefault((m.steps_move[0], m.steps_move[-1], tuple(sorted(m.captures))), m)
            fens.append(board.fen)
            expected.append(set(groups))
            keys = sorted(groups)
            if greedy and rng.random() < 0.3:
                keys = sorted(keys, key=lambda k: -len(k[2]))[:1]
            board.push(groups[rng.choice(keys)])
    return fens, expected


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kroon")
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    fens, expected = collect(args.positions, args.seed)
    out = subprocess.run([args.kroon, "moves", "--batch"], input="\n".join(fens) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    if len(out) != len(fens):
        print(f"kroon answered {len(out)} lines for {len(fens)} positions", file=sys.stderr)
        return 1
    bad = 0
    captures = kings = 0
    for fen, want, line in zip(fens, expected, out):
        got = {kroon_move(t) for t in line.split()}
        captures += any(k[2] for k in want)
        kings += "K" in fen
        if got != want:
            bad += 1
            if bad <= 5:
                print(f"MISMATCH {fen}\n  only kroon: {sorted(got - want)}\n  only pydraughts: {sorted(want - got)}")
    print(f"{len(fens)} positions compared ({captures} with captures, {kings} with kings): {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
