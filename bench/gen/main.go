// Command gen builds a large live heap of varied shapes and writes a heap dump
// of it, for goheap's benchmark.
//
// Usage: gen OUT [N]
//
// With GOHEAP_BENCH_CRASH=1 in its environment it then dies of SIGABRT
// with the traceback level "crash", so that the kernel writes a core of the
// same heap (make-bench-dump.sh --core).
//
// With GOHEAP_BENCH_LIVE=1 it writes no dump (OUT is ignored): it prints
// "ready" and its heap's size once the heap is built, then keeps running
// until its stdin closes, for goheap snap's benchmark (bench/snap.sh).
//
// It allocates about N (default 10,000,000) live heap objects, each counted
// as it is made (map internals come on top), in these shapes:
//
//	30% binary tree nodes (32 bytes)        in 64 trees
//	20% singly linked list nodes (24 bytes) in lists of 1,000
//	15% maps of string -> *Record, 1,000 entries per map (key string + 64-byte Record)
//	10% slices of pointers ([]*Leaf, 64 per slice) and their 24-byte leaves
//	15% strings of 16 to 120 bytes          held in []string
//	10% byte slices of 16 to 255 bytes (1% up to 4 KiB, 1 in 100,000 of 64 KiB to 1 MiB)
//
// plus goroutines blocked in a channel receive, a sleep and a select, each
// holding a structure of N/1000 objects on its stack. It then calls runtime.GC() and writes the
// dump with runtime/debug.WriteHeapDump, and prints the number of objects it
// made. Sizes are never below 16 bytes so that no object is tiny-allocated
// (several tiny objects would share one 16-byte slot).
//
// The default memory profile rate is kept: MemProfileRate = 1 would make
// 10M allocations far slower and the dump much bigger.
package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
)

type TreeNode struct {
	Left, Right *TreeNode
	Key         int64
	Value       int64
}

type ListNode struct {
	Next    *ListNode
	ID      int64
	Payload [2]int32
}

type Record struct {
	Name    string
	Owner   *Record
	Created int64
	Flags   uint32
	Tags    []string
}

type Leaf struct {
	Parent *Leaf
	A, B   int64
}

type World struct {
	Trees   []*TreeNode
	Lists   []*ListNode
	Maps    []map[string]*Record
	Slices  [][]*Leaf
	Strings [][]string
	Bytes   [][]byte
}

var (
	world *World
	made  int64 // objects allocated by this program and still referenced
)

// buildTree builds a balanced tree of n nodes, iteratively by halving ranges.
func buildTree(n int, rng *rand.Rand) *TreeNode {
	if n <= 0 {
		return nil
	}
	var build func(lo, hi int) *TreeNode
	build = func(lo, hi int) *TreeNode {
		if lo >= hi {
			return nil
		}
		mid := (lo + hi) / 2
		t := &TreeNode{Key: int64(mid), Value: rng.Int63()}
		made++
		t.Left = build(lo, mid)
		t.Right = build(mid+1, hi)
		return t
	}
	return build(0, n)
}

func buildList(n int) *ListNode {
	var head *ListNode
	for i := n - 1; i >= 0; i-- {
		head = &ListNode{Next: head, ID: int64(i)}
		made++
	}
	return head
}

func randString(rng *rand.Rand, min, max int) string {
	n := min + rng.Intn(max-min+1)
	b := make([]byte, n) // does not escape: converted below
	for i := range b {
		b[i] = 'a' + byte(rng.Intn(26))
	}
	made++
	return string(b)
}

func buildMap(n int, rng *rand.Rand, base int) map[string]*Record {
	m := make(map[string]*Record, n)
	made++ // the map header; buckets/groups come on top
	var prev *Record
	for i := 0; i < n; i++ {
		key := "key-" + strconv.Itoa(base+i) + "-" + strconv.Itoa(rng.Intn(1<<30))
		for len(key) < 16 {
			key += "x"
		}
		made++
		r := &Record{Name: key, Owner: prev, Created: int64(i), Flags: uint32(i)}
		made++
		m[key] = r
		if i%10 == 0 {
			prev = r
		}
	}
	return m
}

func buildLeaves(n int) []*Leaf {
	s := make([]*Leaf, n)
	made++
	var parent *Leaf
	for i := range s {
		s[i] = &Leaf{Parent: parent, A: int64(i)}
		made++
		if i%8 == 0 {
			parent = s[i]
		}
	}
	return s
}

func buildBytes(rng *rand.Rand) []byte {
	n := 16 + rng.Intn(240)
	switch {
	case rng.Intn(100000) == 0:
		n = 64<<10 + rng.Intn(1<<20-64<<10)
	case rng.Intn(100) == 0:
		n = 256 + rng.Intn(4096-256)
	}
	b := make([]byte, n)
	b[0] = byte(n)
	made++
	return b
}

// Goroutines that hold parts of the heap on their stacks; not inlined, so
// their frames carry their own names rather than main.main.gowrapN.

//go:noinline
func waiter(root *TreeNode, ch <-chan int) {
	<-ch
	runtime.KeepAlive(root)
}

//go:noinline
func sleeper(list *ListNode) {
	time.Sleep(24 * time.Hour)
	runtime.KeepAlive(list)
}

//go:noinline
func selecter(m map[string]*Record, a, b <-chan int) {
	select {
	case <-a:
	case <-b:
	}
	runtime.KeepAlive(m)
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: gen OUT [N]")
		os.Exit(2)
	}
	out := os.Args[1]
	n := int64(10_000_000)
	if len(os.Args) == 3 {
		v, err := strconv.ParseInt(os.Args[2], 10, 64)
		if err != nil || v < 1000 {
			fmt.Fprintln(os.Stderr, "gen: N must be a number >= 1000")
			os.Exit(2)
		}
		n = v
	}
	// 100 million objects are a live heap of about 6 GB: with the default
	// GOGC the heap may grow to twice that before a collection, and the
	// machine has 24 GiB. A soft limit keeps it well below, and a lower
	// GOGC keeps the growth steps small (make-bench-dump.sh clears GOGC and
	// GOMEMLIMIT from the environment, so these are the settings).
	if n >= 20_000_000 {
		debug.SetGCPercent(50)
		debug.SetMemoryLimit(14 << 30)
	}
	rng := rand.New(rand.NewSource(42))
	start := time.Now()
	world = &World{}
	made++

	// 30% tree nodes in 64 trees.
	treeNodes := n * 30 / 100
	for i := int64(0); i < 64; i++ {
		world.Trees = append(world.Trees, buildTree(int(treeNodes/64), rng))
	}
	// 20% list nodes in lists of 1,000.
	for left := n * 20 / 100; left > 0; left -= 1000 {
		world.Lists = append(world.Lists, buildList(int(min64(left, 1000))))
	}
	// 15% map objects: 2 per entry, maps of 1,000 entries.
	for left, base := n*15/100/2, 0; left > 0; left, base = left-1000, base+1000 {
		world.Maps = append(world.Maps, buildMap(int(min64(left, 1000)), rng, base))
	}
	// 10% pointer slices and their leaves: 65 objects per slice.
	for left := n * 10 / 100; left > 0; left -= 65 {
		world.Slices = append(world.Slices, buildLeaves(64))
	}
	// 15% strings, in []string of 1,000 (shared tags point into them too).
	for left := n * 15 / 100; left > 0; left -= 1000 {
		ss := make([]string, min64(left, 1000))
		made++
		for i := range ss {
			ss[i] = randString(rng, 16, 120)
		}
		world.Strings = append(world.Strings, ss)
	}
	for i, m := range world.Maps {
		tags := world.Strings[i%len(world.Strings)][:8]
		for _, r := range m {
			r.Tags = tags // shared backing array: many referrers, one owner
			break
		}
	}
	// 10% byte slices.
	for left := n * 10 / 100; left > 0; left-- {
		world.Bytes = append(world.Bytes, buildBytes(rng))
	}

	// Goroutine-held structures: 0.3% of N more.
	never := make(chan int)
	go waiter(buildTree(int(n/1000), rng), never)
	go sleeper(buildList(int(n / 1000)))
	go selecter(buildMap(int(n/2000), rng, 1<<30), never, never)

	built := time.Since(start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)

	if os.Getenv("GOHEAP_BENCH_LIVE") == "1" {
		fmt.Printf("ready: %d objects, HeapAlloc %d bytes, HeapSys %d bytes; built in %v\n",
			ms.HeapObjects, ms.HeapAlloc, ms.HeapSys, built.Round(time.Millisecond))
		io.Copy(io.Discard, os.Stdin)
		runtime.KeepAlive(world)
		return
	}

	f, err := os.Create(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	dumpStart := time.Now()
	debug.WriteHeapDump(f.Fd())
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("objects made: %d (runtime heap objects after GC: %d, heap bytes: %d); built in %v, dumped in %v to %s\n",
		made, ms.HeapObjects, ms.HeapAlloc, built.Round(time.Millisecond), time.Since(dumpStart).Round(time.Millisecond), out)
	if os.Getenv("GOHEAP_BENCH_CRASH") == "1" {
		// The same heap as a core: under GOTRACEBACK=crash and a raised core
		// limit the kernel writes one when the signal kills us.
		debug.SetTraceback("crash")
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		time.Sleep(time.Minute)
		os.Exit(3)
	}
	runtime.KeepAlive(world)
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}
