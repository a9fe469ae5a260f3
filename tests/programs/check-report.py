#!/usr/bin/env python3
"""Checks a test program's JSON report against the heap dump it wrote.

Usage: check-report.py DUMP REPORT

A second, deliberately simple reader of the go1.7 heap dump format (the one
Go 1.7 to today writes), used only to make sure the Go programs' claims hold
in the dumps they write: every reported object is an object of that size,
the structures are held only by their holder, the chain target is the
reported number of hops from a global, the garbage is unreachable, and the
goroutines and finalizers are there. It is not goheap and shares no code with
it; a failure here means the program's report, not goheap, is wrong.
"""
import bisect
import json
import sys


class Dump:
    def __init__(self, data):
        self.d = data
        self.p = 0
        hdr = b"go1.7 heap dump\n"
        if not data.startswith(hdr):
            raise ValueError("not a go1.7 heap dump")
        self.p = len(hdr)
        self.objects = {}  # addr -> (size, [ptr offsets], content offset)
        self.frames = []  # (goid, depth, name, sp, [(offset, value)])
        self.goroutines = {}  # goid -> dict
        self.roots = []  # (kind, start, [(offset, value)])
        self.finalizers = []
        self.itabs = {}
        self.types = {}
        self.samples = 0
        self.parse()

    def uv(self):
        d, p = self.d, self.p
        x = s = 0
        while True:
            b = d[p]
            p += 1
            x |= (b & 0x7F) << s
            if b < 0x80:
                break
            s += 7
        self.p = p
        return x

    def bytes_(self):
        n = self.uv()
        off = self.p
        self.p += n
        return off, n

    def string(self):
        off, n = self.bytes_()
        return self.d[off:off + n].decode("utf-8", "replace")

    def fields(self):
        out = []
        while True:
            k = self.uv()
            if k == 0:
                return out
            out.append(self.uv())

    def word(self, off):
        return int.from_bytes(self.d[off:off + self.ptr], "big" if self.big else "little")

    def parse(self):
        cur_g = None
        while True:
            tag = self.uv()
            if tag == 0:
                return
            if tag == 1:
                addr = self.uv()
                off, n = self.bytes_()
                self.objects[addr] = (n, self.fields(), off)
            elif tag == 2:
                self.string()
                self.roots.append(("other", 0, [(0, self.uv())]))
            elif tag == 3:
                addr, size, name, _ = self.uv(), self.uv(), self.string(), self.uv()
                self.types[addr] = (size, name)
            elif tag == 4:
                g = dict(addr=self.uv(), sp=self.uv(), id=self.uv(), gopc=self.uv(), status=self.uv(),
                         system=self.uv(), background=self.uv(), waitsince=self.uv(),
                         waitreason=self.string(), ctxt=self.uv(), m=self.uv(), defer=self.uv(),
                         panic=self.uv(), frames=[])
                self.goroutines[g["id"]] = g
                cur_g = g
            elif tag == 5:
                sp, depth, _child = self.uv(), self.uv(), self.uv()
                off, n = self.bytes_()
                _entry, _pc, _cont, name = self.uv(), self.uv(), self.uv(), self.string()
                ptrs = [(o, self.word(off + o)) for o in self.fields() if o + self.ptr <= n]
                cur_g["frames"].append(name)
                self.frames.append((cur_g["id"], depth, name, sp, ptrs))
            elif tag == 6:
                self.big, self.ptr = bool(self.uv()), self.uv()
                self.heap_start, self.heap_end = self.uv(), self.uv()
                self.goarch, self.version, self.ncpu = self.string(), self.string(), self.uv()
            elif tag == 7 or tag == 11:
                rec = [self.uv() for _ in range(5)]
                if tag == 7:
                    self.finalizers.append(rec[0])
            elif tag == 8:
                self.itabs[self.uv()] = self.uv()
            elif tag == 9:
                self.uv(), self.uv(), self.uv()
            elif tag == 10:
                for _ in range(281):
                    self.uv()
            elif tag in (12, 13):
                start = self.uv()
                off, n = self.bytes_()
                ptrs = [(o, self.word(off + o)) for o in self.fields() if o + self.ptr <= n]
                self.roots.append(("data" if tag == 12 else "bss", start, ptrs))
            elif tag == 14:
                for _ in range(7):
                    self.uv()
            elif tag == 15:
                for _ in range(6):
                    self.uv()
            elif tag == 16:
                self.uv(), self.uv()
                for _ in range(self.uv()):
                    self.string(), self.string(), self.uv()
                self.uv(), self.uv()
            elif tag == 17:
                self.uv(), self.uv()
                self.samples += 1
            else:
                raise ValueError("unknown tag %d at offset %d" % (tag, self.p))

    def index(self):
        self.addrs = sorted(self.objects)

    def find(self, v):
        """The object containing address v, or None."""
        i = bisect.bisect_right(self.addrs, v) - 1
        if i >= 0:
            a = self.addrs[i]
            if v < a + self.objects[a][0]:
                return a
        return None

    def out_edges(self, a):
        n, offs, off = self.objects[a]
        for o in offs:
            t = self.find(self.word(off + o))
            if t is not None:
                yield t


def main():
    dump_path, report_path = sys.argv[1], sys.argv[2]
    with open(dump_path, "rb") as f:
        d = Dump(f.read())
    with open(report_path) as f:
        rep = json.load(f)
    d.index()
    errors = []

    def check(cond, msg):
        if not cond:
            errors.append(msg)

    check(d.big == rep.get("big_endian"), "big_endian %s vs params %s" % (rep["big_endian"], d.big))
    check(d.ptr == rep["ptr_size"], "ptr_size %s vs params %s" % (rep["ptr_size"], d.ptr))
    check(d.goarch == rep["goarch"], "goarch %s vs params %s" % (rep["goarch"], d.goarch))

    for label, o in rep.get("objects", {}).items():
        a = int(o["addr"], 16)
        if a not in d.objects:
            errors.append("object %s at %s is not the start of an object" % (label, o["addr"]))
        elif d.objects[a][0] != o["size"]:
            errors.append("object %s: slot %d != size %d" % (label, d.objects[a][0], o["size"]))

    # Root edges: (description, target object).
    root_edges = []
    for kind, start, ptrs in d.roots:
        for off, v in ptrs:
            t = d.find(v)
            if t is not None:
                root_edges.append(("%s+%#x" % (kind, off), t))
    for goid, depth, name, sp, ptrs in d.frames:
        for off, v in ptrs:
            t = d.find(v)
            if t is not None:
                root_edges.append(("frame %s (g%d)" % (name, goid), t))
    for a in d.finalizers:
        # The runtime marks what a finalized object points to, not the object.
        for t in d.out_edges(d.find(a)):
            root_edges.append(("finalizer", t))

    # Reachability and referrers.
    reach = set()
    stack = [t for _, t in root_edges]
    while stack:
        a = stack.pop()
        if a in reach:
            continue
        reach.add(a)
        stack.extend(d.out_edges(a))
    referrers = {}
    for a in reach:
        for t in d.out_edges(a):
            referrers.setdefault(t, []).append(a)
    for desc, t in root_edges:
        referrers.setdefault(t, []).append(desc)

    for label, o in rep.get("objects", {}).items():
        check(int(o["addr"], 16) in reach, "object %s is not reachable" % label)

    def held_only_by(label, s, members):
        """members must be reached only from each other or from the root."""
        root = int(s["root_addr"], 16)
        ins = [r for r in referrers.get(root, []) if not (isinstance(r, int) and r in members)]
        return root, ins

    s = rep.get("structures", {}).get("retained_tree")
    if s:
        root = int(s["root_addr"], 16)
        members, stack = set(), [root]
        while stack:
            a = stack.pop()
            if a not in members:
                members.add(a)
                stack.extend(d.out_edges(a))
        check(len(members) == s["count"], "tree: %d nodes reachable from root, want %d" % (len(members), s["count"]))
        check(sum(d.objects[a][0] for a in members) == s["bytes"], "tree bytes")
        outside = [(a, r) for a in members for r in referrers.get(a, []) if not (isinstance(r, int) and r in members)]
        check(len(outside) == 1 and isinstance(outside[0][1], str) and outside[0][0] == root
              and outside[0][1].split("+")[0] in ("data", "bss"),
              "tree: referrers from outside: %s" % outside[:5])

    s = rep.get("structures", {}).get("held_buffer")
    if s:
        buf = int(s["root_addr"], 16)
        refs = referrers.get(buf, [])
        check(len(refs) >= 1 and all(r == "frame main.holdBuffer (g%d)" % g["id"]
                                     for r in refs for g in rep.get("goroutines", []) if g.get("label") == "hold_buffer"),
              "held buffer referrers: %s" % refs)

    s = rep.get("structures", {}).get("session_cache")
    if s:
        m = int(s["root_addr"], 16)
        refs = referrers.get(m, [])
        check(len(refs) == 1 and str(refs[0]).split("+")[0] in ("data", "bss"), "session map referrers: %s" % refs)
        # Every Session is reachable from the map without passing through a root.
        seen, stack = set(), [m]
        while stack:
            a = stack.pop()
            if a not in seen:
                seen.add(a)
                stack.extend(d.out_edges(a))
        sess = [int(o["addr"], 16) for k, o in rep.get("objects", {}).items() if k.startswith("session_")]
        check(len(sess) == s["count"] and all(a in seen for a in sess), "sessions not all under the map")

    for p in rep.get("paths", []):
        target = int(p["target_addr"], 16)
        # BFS from the data/bss roots, counting the root slot -> first object as one hop.
        frontier = {t for desc, t in root_edges if desc.split("+")[0] in ("data", "bss")}
        dist, hops = set(frontier), 1
        while frontier and target not in frontier:
            nxt = set()
            for a in frontier:
                for t in d.out_edges(a):
                    if t not in dist:
                        dist.add(t)
                        nxt.add(t)
            frontier, hops = nxt, hops + 1
        check(target in frontier and hops == p["hops"], "path %s: %s hops, want %d" % (p["global"], hops, p["hops"]))

    g = rep.get("garbage", {"size": 0, "count_at_least": 0})
    garbage = [a for a, (n, _, _) in d.objects.items() if n == g["size"] and a not in reach]
    check(len(garbage) >= g["count_at_least"], "only %d unreachable %d-byte objects" % (len(garbage), g["size"]))

    for a in rep.get("finalizers", []):
        check(int(a, 16) in d.finalizers, "no finalizer record for %s" % a)

    for rg in rep.get("goroutines", []):
        dg = d.goroutines.get(rg["id"])
        if dg is None:
            errors.append("goroutine %d missing from dump" % rg["id"])
            continue
        if rg.get("label") and rg.get("label") != "main":
            check(dg["waitreason"] == rg["state"], "goroutine %d: dump says %r, report %r"
                  % (rg["id"], dg["waitreason"], rg["state"]))

    if "dog" in rep.get("objects", {}):
        dog = int(rep["objects"]["dog"]["addr"], 16)
        check(len(d.itabs) > 0, "no itabs")
        refs = referrers.get(dog, [])
        check(any(isinstance(r, str) and r.split("+")[0] in ("data", "bss") for r in refs), "dog referrers: %s" % refs)

    summary = "%s %s: %d objects, %d reachable, %d goroutines, %d alloc samples, %d itabs" % (
        d.version, d.goarch, len(d.objects), len(reach), len(d.goroutines), d.samples, len(d.itabs))
    if errors:
        print("check-report: %s: FAILED (%s)" % (dump_path, summary))
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("check-report: %s: ok (%s)" % (dump_path, summary))


if __name__ == "__main__":
    main()
