#!/usr/bin/env python3
"""A stand-in for the Tessel CLI, to test differential.py's machinery before the Rust CLI exists.

    fake_tessel.py [--mode cat|tvm|broken] fmt FILE
    fake_tessel.py [--mode ...] check FILE

fmt:
  cat     print FILE unchanged (default; every seed case must pass)
  tvm     print TVM 0.27's own canonical printing of FILE (0.27 dialect; exercises the TypeVar /
          access_ptr corner cases of TVM's printer)
  broken  print FILE with the first `T.float32(0)` / `0.0` constant changed to 1, or its first
          `+` turned into `-` (the suite must report (b) failures)
check:
  uses TVM 0.27 as the checker: exit 1 with `error: <TVM's message>` and a caret line when TVM
  rejects the file (parse, Schedule construction or llvm compile), else exit 0. The verify_fail
  files TVM itself accepts therefore FAIL under this fake -- by design (Tessel must reject them).
  In mode `broken`, check exits 0 for everything.
"""

from __future__ import annotations

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _tvm_python import ensure_tvm  # noqa: E402

ensure_tvm()


def main(argv: list[str]) -> int:
    mode = "cat"
    if len(argv) >= 2 and argv[0] == "--mode":
        mode, argv = argv[1], argv[2:]
    if len(argv) != 2 or argv[0] not in ("fmt", "check"):
        print("usage: fake_tessel.py [--mode cat|tvm|broken] fmt|check FILE", file=sys.stderr)
        return 2
    cmd, path = argv
    with open(path, encoding="utf-8") as f:
        src = f.read()
    if cmd == "fmt":
        if mode == "cat":
            sys.stdout.write(src)
        elif mode == "tvm":
            from tvm_compat import parse_tvm, to_tvm027

            sys.stdout.write(parse_tvm(to_tvm027(src), os.path.basename(path)).script() + "\n")
        elif mode == "broken":
            out, n = re.subn(r"T\.float32\(0(\.0)?\)|(?<=\s)0\.0\b", "T.float32(1)", src, count=1)
            if n == 0:
                out = re.sub(r" \+ ", " - ", src, count=1)
            sys.stdout.write(out)
        else:
            print(f"unknown mode {mode}", file=sys.stderr)
            return 2
        return 0
    # check
    if mode == "broken":
        return 0
    from tvm_verdict import verdict

    v, stage, msg = verdict(path)
    if v == "accepted":
        return 0
    first = next((l.strip() for l in msg.splitlines() if l.strip()), msg)
    print(f"error: [TVM {stage}] {first}")
    print(f"  --> {path}")
    print("   ^")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
