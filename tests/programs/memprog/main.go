// Command memprog lays out its process's memory in amounts it knows, and
// writes them as the oracle of `goheap memory` (issue 31): where every
// mapped byte of a Go process is, the C heap and a mapped file included.
//
// Usage: memprog DUMP REPORT [crash|live]
//
// It
//   - mallocs in C: MEMPROG_LARGE blocks of 4 MiB, each above glibc's mmap
//     threshold and so a mapping of its own, and many 256-byte blocks,
//     which the main arena serves from its brk heap (the main goroutine is
//     locked to the main thread, whose arena is the main one);
//   - parks `parked` goroutines, each on a stack grown to about 32 KiB;
//   - maps a file of 8 MiB beside REPORT and reads every page of it;
//   - keeps 16 MiB of Go objects live, and frees 64 MiB more without
//     returning it (no debug.FreeOSMemory): the heap holds it idle;
//   - writes a heap dump to DUMP, then REPORT: its runtime.MemStats, its
//     resident set (/proc/self/smaps_rollup's Rss), the C bytes it
//     malloc'd and what glibc says its heap took from the system
//     (mallinfo2), the file it mapped, read as late as it can be, just
//     before the core.
//
// With crash it dies of SIGABRT after the report: under GOTRACEBACK=crash
// the kernel writes a core (tests/core/process_memory_test.cpp). With live
// it keeps running for goheap snap: it prints "ready", answers "ping" with
// "pong" on stdin, and exits when stdin closes.
package main

/*
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// What glibc itself says it got from the system for its heap: the arenas'
// memory (the main arena's brk heap, the other arenas' heaps) and the
// chunks it mapped one by one.
static void glibc_heap(size_t *arenas, size_t *mapped) {
	struct mallinfo2 mi = mallinfo2();
	*arenas = mi.arena;
	*mapped = mi.hblkhd;
}

// Blocks malloc'd and touched, never freed: `n` of `size` bytes. Returns
// how many were had.
static int alloc_blocks(int n, size_t size) {
	for (int i = 0; i < n; i++) {
		char *p = malloc(size);
		if (p == NULL) return i;
		memset(p, 0x5a, size);
	}
	return n;
}
*/
import "C"

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	largeBlock  = 4 << 20
	smallBlock  = 256
	smallBlocks = 40000 // 10 MiB
	parked      = 1000
	fileBytes   = 8 << 20
	liveBytes   = 16 << 20
	freedBytes  = 64 << 20
	chunk       = 64 << 10
)

func init() {
	// The main goroutine keeps to the main thread, so C's mallocs use
	// glibc's main arena: its brk heap and its own mmaps.
	runtime.LockOSThread()
}

type report struct {
	GoVersion string `json:"go_version"`
	// runtime.MemStats, the fields goheap memory compares with.
	MemStats map[string]uint64 `json:"memstats"`
	// The process's Rss in bytes, from /proc/self/smaps_rollup.
	Rss uint64 `json:"rss"`
	// What C malloc'd: the large blocks (a mapping each) and the small.
	CLargeBlocks int    `json:"c_large_blocks"`
	CLargeBytes  uint64 `json:"c_large_bytes"`
	CSmallBlocks int    `json:"c_small_blocks"`
	CSmallBytes  uint64 `json:"c_small_bytes"`
	// glibc's own accounting (mallinfo2), read last: the arenas' system
	// memory and the mmapped chunks' bytes.
	GlibcArenaBytes uint64 `json:"glibc_arena_bytes"`
	GlibcMmapBytes  uint64 `json:"glibc_mmap_bytes"`
	MappedFile      string `json:"mapped_file"`
	MappedBytes     uint64 `json:"mapped_file_bytes"`
	Parked          int    `json:"parked_goroutines"`
	LiveBytes       uint64 `json:"live_bytes"`
	FreedBytes      uint64 `json:"freed_bytes"`
}

var (
	block = make(chan struct{})
	live  [][]byte
	// The mapping, kept so that it stays mapped.
	mapped []byte
)

// park grows its stack by about 1 KiB a level, then blocks for good.
func park(depth int, started chan<- struct{}) byte {
	var pad [1024]byte
	pad[depth%len(pad)] = byte(depth)
	if depth > 0 {
		return park(depth-1, started) + pad[0]
	}
	started <- struct{}{}
	<-block
	return pad[1]
}

func rss() uint64 {
	text, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(text), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "Rss:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "memprog:", err)
	os.Exit(1)
}

func main() {
	mode := ""
	if len(os.Args) == 4 {
		mode = os.Args[3]
	}
	if len(os.Args) < 3 || len(os.Args) > 4 || (mode != "" && mode != "crash" && mode != "live") {
		fmt.Fprintln(os.Stderr, "usage: memprog DUMP REPORT [crash|live]")
		os.Exit(2)
	}
	large := 3
	if n, err := strconv.Atoi(os.Getenv("MEMPROG_LARGE")); err == nil && n >= 0 {
		large = n
	}
	rep := report{GoVersion: runtime.Version(), Parked: parked, LiveBytes: liveBytes,
		FreedBytes: freedBytes}

	rep.CLargeBlocks = int(C.alloc_blocks(C.int(large), largeBlock))
	rep.CLargeBytes = uint64(rep.CLargeBlocks) * largeBlock
	rep.CSmallBlocks = int(C.alloc_blocks(smallBlocks, smallBlock))
	rep.CSmallBytes = uint64(rep.CSmallBlocks) * smallBlock

	started := make(chan struct{})
	for i := 0; i < parked; i++ {
		go park(28, started)
	}
	for i := 0; i < parked; i++ {
		<-started
	}

	rep.MappedFile = filepath.Join(filepath.Dir(os.Args[2]), "memprog.mapped")
	contents := make([]byte, fileBytes)
	for i := range contents {
		contents[i] = byte(i / 4096)
	}
	if err := os.WriteFile(rep.MappedFile, contents, 0o644); err != nil {
		fail(err)
	}
	contents = nil
	f, err := os.Open(rep.MappedFile)
	if err != nil {
		fail(err)
	}
	mapped, err = syscall.Mmap(int(f.Fd()), 0, fileBytes, syscall.PROT_READ, syscall.MAP_SHARED)
	f.Close()
	if err != nil {
		fail(err)
	}
	sum := 0
	for i := 0; i < len(mapped); i += 4096 {
		sum += int(mapped[i])
	}
	rep.MappedBytes = fileBytes

	for n := 0; n < liveBytes; n += chunk {
		live = append(live, make([]byte, chunk))
	}
	freed := make([][]byte, 0, freedBytes/chunk)
	for n := 0; n < freedBytes; n += chunk {
		b := make([]byte, chunk)
		b[0] = byte(sum)
		freed = append(freed, b)
	}
	freed = nil
	runtime.GC()
	runtime.GC()

	d, err := os.Create(os.Args[1])
	if err != nil {
		fail(err)
	}
	debug.WriteHeapDump(d.Fd())
	d.Close()

	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rep.MemStats = map[string]uint64{
		"Sys": m.Sys, "HeapAlloc": m.HeapAlloc, "HeapSys": m.HeapSys, "HeapIdle": m.HeapIdle,
		"HeapInuse": m.HeapInuse, "HeapReleased": m.HeapReleased, "StackInuse": m.StackInuse,
		"StackSys": m.StackSys, "MSpanInuse": m.MSpanInuse, "MSpanSys": m.MSpanSys,
		"MCacheSys": m.MCacheSys, "BuckHashSys": m.BuckHashSys, "GCSys": m.GCSys,
		"OtherSys": m.OtherSys,
	}
	var arenas, mapped C.size_t
	C.glibc_heap(&arenas, &mapped)
	rep.GlibcArenaBytes, rep.GlibcMmapBytes = uint64(arenas), uint64(mapped)
	rep.Rss = rss()
	out, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(os.Args[2], append(out, '\n'), 0o644)
	}
	if err != nil {
		fail(err)
	}
	runtime.KeepAlive(live)
	if mode == "live" {
		fmt.Println("ready")
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			if in.Text() == "ping" {
				fmt.Println("pong")
			}
		}
		return
	}
	if mode == "crash" {
		debug.SetTraceback("crash")
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		time.Sleep(10 * time.Second)
		os.Exit(3) // the signal did not kill us
	}
}
