#!/usr/bin/env python3
"""Deterministic subset of the NIST CAVP GCM files (see README.md here).

From every [Keylen/IVlen/PTlen/AADlen/Taglen] group keep the first 3
records; in gcmDecrypt* files, if none of those 3 is a FAIL record, also
keep the group's first FAIL record. Header comments and group headers are
kept as they are; CRLF line ends become LF.

usage: subset_nist.py SRC_DIR DST_DIR
"""
import os
import sys

FILES = [f"gcm{k}{n}.rsp" for k in ("EncryptExtIV", "Decrypt") for n in (128, 192, 256)]


def subset(text):
    out, group, recs = [], [], []

    def flush():
        if not recs and not group:
            return
        keep = recs[:3]
        if not any("FAIL" in r for r in keep):
            fails = [r for r in recs if "FAIL" in r]
            keep += fails[:1]
        out.extend(group)
        out.append("")
        for r in keep:
            out.extend(r)
            out.append("")

    lines = [l.rstrip("\r") for l in text.split("\n")]
    cur = None
    header = True
    for l in lines:
        if l.startswith("["):
            if header is False and cur is None and recs and group and not group[-1].startswith("["):
                pass
            if group and not group[-1].startswith("[") or (group and recs):
                flush()
                group, recs = [], []
            group.append(l)
            header = False
        elif header:
            out.append(l)
        elif l.startswith("Count"):
            cur = [l]
            recs.append(cur)
        elif l.strip() == "":
            cur = None
        elif cur is not None:
            cur.append(l)
    flush()
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    for f in FILES:
        with open(os.path.join(src, f), newline="") as fh:
            t = fh.read()
        with open(os.path.join(dst, f.replace(".rsp", ".subset.rsp")), "w") as fh:
            fh.write(subset(t))


main()
