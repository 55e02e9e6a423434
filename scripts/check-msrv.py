#!/usr/bin/env python3
"""The workspace's rust-version must be true for everything Cargo.lock builds: no locked package
may ask for a newer Rust. (Clippy's incompatible_msrv lint checks Kroon's own code against it.)

usage: cargo metadata --format-version 1 --locked | scripts/check-msrv.py
"""
import json
import sys


def version(text):
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
ours = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
if len(ours) != 1 or None in ours:
    sys.exit(f"every workspace crate must inherit one rust-version; found {sorted(map(str, ours))}")
msrv = ours.pop()
newer = [(p["rust_version"], p["name"], p["version"]) for p in meta["packages"]
         if p.get("rust_version") and version(p["rust_version"]) > version(msrv)]
if newer:
    for need, name, ver in sorted(newer):
        print(f"{name} {ver} needs Rust {need}, above the workspace's rust-version {msrv}")
    sys.exit(1)
top = max((version(p["rust_version"]), p["name"]) for p in meta["packages"] if p.get("rust_version"))
print(f"rust-version {msrv}: every locked package builds with it (the most demanding: {top[1]})")
