#!/usr/bin/env python3
"""retry_layout.py CMD...: runs a unified-shared-memory test, and runs it again (up to three
times in all) when, and only when, it stopped at the layout check: some of rank 0's memory
lay at addresses a serving rank uses too. Both address layouts are random per process, so
that happens by chance, rarely (docs/user-guide.md, "Unified shared memory"); any other
failure, and a collision three times in a row, fail the test."""
import subprocess
import sys

COLLISION = "is at addresses this serving rank uses too"
ATTEMPTS = 3


def main() -> int:
    cmd = sys.argv[1:]
    rc = 1
    for attempt in range(1, ATTEMPTS + 1):
        r = subprocess.run(cmd, capture_output=True, text=True)
        rc = r.returncode
        output = r.stdout + r.stderr
        if rc == 0 or COLLISION not in output or attempt == ATTEMPTS:
            sys.stdout.write(r.stdout)
            sys.stderr.write(r.stderr)
            return rc
        # Only the collision is shown of a retried attempt: its program's own FAIL lines
        # would fail the test through CTest's FAIL_REGULAR_EXPRESSION after a passing retry.
        collision = next(line for line in output.splitlines() if COLLISION in line)
        print(f"retry_layout.py: attempt {attempt} of {ATTEMPTS} met an address-layout collision, "
              f"which random layouts make possible; running the program again. It said: {collision}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
