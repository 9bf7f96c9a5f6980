#!/usr/bin/env python3
"""Writes 000-pipe-exclusive-autosel-as-sent.mbox: seed 000 as the list
delivered it, before the repairs listed in testdata/seeds/README.md.

In Andrei Vagin's reply (a Gmail message) every tab is expanded the way
Gmail does it (the first tab stop 7 columns after the diff's op column,
then every 8 columns; in quoted text after the "> " prefix), and the hunk
lines of his inline quick fix longer than WRAP columns are wrapped after
the last comma before that column, the rest going on a line of its own,
as in the archived message. The first message (Sasha's patch) is unchanged.

    cd testdata/damaged && python3 make-damaged.py ../seeds/000-pipe-exclusive-autosel.mbox
"""
import sys

WRAP = 78  # Gmail's line length


def expand(line):
    """Expands tabs to 8-column tab stops, counting from the line start."""
    out = ""
    for ch in line:
        if ch == "\t":
            out += " " * (8 - len(out) % 8)
        else:
            out += ch
    return out


def wrap(line):
    """Wraps a line longer than WRAP after its last comma before WRAP (the
    archived message breaks "...(&pipe->wr_wait," / "EPOLLOUT | ...")."""
    if len(line) <= WRAP:
        return [line]
    cut = line.rfind(", ", 0, WRAP)
    if cut <= 0:
        cut = line.rfind(" ", 0, WRAP + 1)
    else:
        cut += 1
    if cut <= 0:
        return [line]
    return [line[:cut], line[cut + 1:]]


def main(src):
    text = open(src, encoding="utf-8").read()
    start = text.index("\nFrom avagin@gmail.com ")
    head, reply = text[:start + 1], text[start + 1:]
    out = []
    in_diff = False
    for line in reply.split("\n"):
        if line.startswith("diff --git "):
            in_diff = True
        elif in_diff and line == "":
            in_diff = False
        if line.startswith(">"):
            # "> " + expanded text (Gmail expands before quoting).
            out.append(("> " + expand(line[2:])).rstrip() if line.startswith("> ") else line)
            continue
        line = expand(line)
        if in_diff and line[:1] in (" ", "+", "-") and not line.startswith(("--- ", "+++ ")):
            out.extend(wrap(line))
        else:
            out.append(line)
    dst = "000-pipe-exclusive-autosel-as-sent.mbox"
    open(dst, "w", encoding="utf-8").write(head + "\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
