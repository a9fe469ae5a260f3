// Command leaks leaks memory on purpose and writes two heap dumps, one before
// the leaks grow (OLD) and one after (NEW), with a JSON report of what it
// leaked, duplicated and wasted: the oracle of goheap's diff, suspects, dups
// and waste.
//
// Usage: leaks DUMP REPORT [crash-old|crash-new]
//
// writes the baseline dump to DUMP.old, then grows the leaks, writes DUMP and
// REPORT. make-dumps.sh moves DUMP.old to leaks.old.dump. With crash-old it
// dies of SIGABRT right after DUMP.old, with crash-new right after REPORT:
// under GOTRACEBACK=crash the kernel writes a core of either moment, for the
// tests of diff on cores (tests/core/core_model_test.cpp).
//
// Standard library only; built for 64-bit targets (the sizes below are Go
// size classes there, so an object's slot is exactly its type's size unless
// the report says otherwise).
//
// The leaks (all addresses "0x" + lower-case hex, as %p prints):
//
//   - sessions: a map[uint64]*Session in the global main.sessions that only
//     grows. OLD holds sessions_old of them, NEW sessions_old+sessions_added.
//     Session is 128 bytes, pointer-free. Report: map_addr (the map header),
//     new_addrs (every Session added between the dumps).
//   - buffers: goroutines running main.holdBuffer that never exit, each
//     keeping a 64 KiB []byte alive from its stack only. OLD has buffers_old
//     goroutines, NEW buffers_old+buffers_added; new_addrs are the buffers of
//     the added ones.
//   - heads: the global main.heads, a [][]byte whose elements are 16-byte
//     slices of 32 KiB arrays (make([]byte, 32<<10)[:16], or [1024:1040]):
//     each array keeps 32,752 bytes that no slice can see. Report: every
//     array's addr, the slice's len and cap and offset into its array.
//   - duplicate strings: the global main.nameCache, a []string holding
//     dup_string.copies separate copies of one 64-byte string (so each copy
//     is a 64-byte object), plus unique_strings distinct ones; OLD has
//     dup_string_old of the copies.
//   - duplicate byte slices: the global main.blobs, dup_bytes.copies copies
//     of one 256-byte []byte.
//   - identical objects: the global main.configs, identical_configs.copies
//     *Config values with equal contents (the same *Limits pointer and
//     numbers), 64 bytes each.
//   - size-class rounding: the global main.padded holds padded.count
//     *Padded values of padded.type_size (72) bytes; padded.slot_size is
//     what the runtime charged per object (runtime.MemStats.TotalAlloc delta
//     over the allocation divided by the count), so the rounding loss is
//     count * (slot_size - type_size).
//   - a map that shrank: main.shrunk, a map[int]int that held shrunk.peak
//     entries and now holds shrunk.len; Go maps never give storage back.
//   - garbage: garbage.count objects of garbage.size bytes allocated after
//     the last GC and dropped: in NEW, unreachable.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Every allocation from package initialisation on gets an alloc sample.
var _ = func() int { runtime.MemProfileRate = 1; return 0 }()

// Session is 128 bytes, a size class, and holds no pointers.
type Session struct {
	ID      uint64
	Started int64
	Payload [112]byte
}

// Limits is shared by every Config.
type Limits struct {
	MaxConns, MaxBody uint64
}

// Config is 64 bytes, a size class, with one pointer.
type Config struct {
	Limits        *Limits
	Port, Retries uint64
	Timeout       int64
	_             [32]byte
}

// Padded is 72 bytes; the next size class is 80.
type Padded struct {
	A, B, C, D, E, F, G, H, I uint64
}

// garbage96 is 96 bytes, a size class.
type garbage96 struct {
	next *garbage96
	_    [88]byte
}

const (
	sessionsOld   = 100
	sessionsAdded = 20000
	buffersOld    = 2
	buffersAdded  = 6
	bufferSize    = 64 << 10
	headsOld      = 2
	headsAdded    = 8
	headArray     = 32 << 10
	headLen       = 16
	dupStringOld  = 50
	dupStringNew  = 300 // copies in NEW
	uniqueStrings = 100
	dupBytesCount = 40
	dupBytesLen   = 256
	configCount   = 25
	paddedCount   = 1000
	shrunkPeak    = 10000
	shrunkLen     = 3
	garbageCount  = 400
)

var (
	sessions    = map[uint64]*Session{}
	heads       [][]byte
	nameCache   []string
	blobs       [][]byte
	configs     []*Config
	padded      [paddedCount]*Padded
	shrunk      = map[int]int{}
	garbageSink *garbage96
	release     = make(chan struct{}) // never closed
	started     = make(chan uintptr, 64)
	nextSession uint64
)

//go:noinline
func newSession() *Session {
	nextSession++
	return &Session{ID: nextSession, Started: time.Now().UnixNano()}
}

// bufferLen is a variable, not the constant: make with a constant size up to
// 64 KiB may put the buffer in the goroutine's stack frame, and the buffers
// must be heap objects that only a frame holds.
var bufferLen = bufferSize

// holdBuffer keeps its buffer alive from its stack and never returns.
func holdBuffer() {
	buf := make([]byte, bufferLen)
	buf[0] = 1
	started <- uintptr(unsafe.Pointer(&buf[0]))
	<-release
	runtime.KeepAlive(buf)
}

// dupText is the duplicated string's contents: 64 bytes.
var dupText = strings.Repeat("session-token:", 5)[:64]

//go:noinline
func copyString(s string) string { return string([]byte(s)) }

func hexAddr(p uintptr) string { return fmt.Sprintf("%#x", p) }

type head struct {
	Addr   string `json:"addr"`
	Size   uint64 `json:"size"`
	Offset uint64 `json:"offset"`
	Len    uint64 `json:"len"`
	Cap    uint64 `json:"cap"`
}

type copies struct {
	Holder string   `json:"holder"`
	Copies uint64   `json:"copies"`
	Size   uint64   `json:"size"` // of one copy (its object)
	Addrs  []string `json:"addrs"`
}

type report struct {
	GoVersion string `json:"go_version"`
	GOARCH    string `json:"goarch"`
	PtrSize   uint64 `json:"ptr_size"`
	Sessions  struct {
		Global   string   `json:"global"`
		MapAddr  string   `json:"map_addr"`
		Type     string   `json:"type"`
		Size     uint64   `json:"size"`
		Old      uint64   `json:"sessions_old"`
		Added    uint64   `json:"sessions_added"`
		NewAddrs []string `json:"new_addrs"`
		NewBytes uint64   `json:"new_bytes"`
	} `json:"sessions"`
	Buffers struct {
		Function string   `json:"function"`
		Size     uint64   `json:"size"`
		Old      uint64   `json:"buffers_old"`
		Added    uint64   `json:"buffers_added"`
		NewAddrs []string `json:"new_addrs"`
	} `json:"buffers"`
	Heads struct {
		Global string `json:"global"`
		Old    uint64 `json:"heads_old"`
		Arrays []head `json:"arrays"` // every one in NEW; the first heads_old are in OLD too
		Hidden uint64 `json:"hidden_bytes"`
	} `json:"heads"`
	DupString        copies `json:"dup_string"`
	DupStringOld     uint64 `json:"dup_string_old"` // copies already in OLD
	UniqueStrings    uint64 `json:"unique_strings"`
	DupBytes         copies `json:"dup_bytes"`
	IdenticalConfigs copies `json:"identical_configs"`
	Padded           struct {
		Global   string `json:"global"`
		Type     string `json:"type"`
		Count    uint64 `json:"count"`
		TypeSize uint64 `json:"type_size"`
		SlotSize uint64 `json:"slot_size"`
		Wasted   uint64 `json:"wasted"`
	} `json:"padded"`
	Shrunk struct {
		Global  string `json:"global"`
		MapAddr string `json:"map_addr"`
		Peak    uint64 `json:"peak"`
		Len     uint64 `json:"len"`
	} `json:"shrunk"`
	Garbage struct {
		Count uint64 `json:"count"`
		Size  uint64 `json:"size"`
	} `json:"garbage"`
}

func writeDump(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaks:", err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "leaks:", err)
		os.Exit(1)
	}
}

func addHead(rep *report, i int) {
	big := make([]byte, headArray)
	var offset uint64
	if i%2 == 1 {
		offset = 1024
	}
	s := big[offset : offset+headLen]
	heads = append(heads, s)
	rep.Heads.Arrays = append(rep.Heads.Arrays, head{
		hexAddr(uintptr(unsafe.Pointer(&big[0]))), headArray, offset, uint64(len(s)), uint64(cap(s)),
	})
	rep.Heads.Hidden += headArray - headLen
}

func addString(rep *report) {
	s := copyString(dupText)
	nameCache = append(nameCache, s)
	rep.DupString.Addrs = append(rep.DupString.Addrs, hexAddr(*(*uintptr)(unsafe.Pointer(&s))))
}

func main() {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: leaks DUMP REPORT [crash-old|crash-new]")
		os.Exit(2)
	}
	crashAt := ""
	if len(os.Args) == 4 {
		crashAt = os.Args[3]
	}
	if unsafe.Sizeof(uintptr(0)) != 8 {
		fmt.Fprintln(os.Stderr, "leaks: needs a 64-bit target")
		os.Exit(2)
	}
	dumpPath, reportPath := os.Args[1], os.Args[2]
	var rep report
	rep.GoVersion, rep.GOARCH, rep.PtrSize = runtime.Version(), runtime.GOARCH, 8

	// ---- the baseline ----
	for i := 0; i < sessionsOld; i++ {
		s := newSession()
		sessions[s.ID] = s
	}
	for i := 0; i < buffersOld; i++ {
		go holdBuffer()
		<-started
	}
	for i := 0; i < headsOld; i++ {
		addHead(&rep, i)
	}
	for i := 0; i < dupStringOld; i++ {
		addString(&rep)
	}
	for i := 0; i < uniqueStrings; i++ {
		nameCache = append(nameCache, fmt.Sprintf("unique-name-%04d-%s", i, strings.Repeat("u", 47)))
	}
	pattern := make([]byte, dupBytesLen)
	for i := range pattern {
		pattern[i] = byte(i * 7)
	}
	for i := 0; i < dupBytesCount; i++ {
		b := make([]byte, dupBytesLen)
		copy(b, pattern)
		blobs = append(blobs, b)
		rep.DupBytes.Addrs = append(rep.DupBytes.Addrs, hexAddr(uintptr(unsafe.Pointer(&b[0]))))
	}
	limits := &Limits{MaxConns: 100, MaxBody: 1 << 20}
	for i := 0; i < configCount; i++ {
		c := &Config{Limits: limits, Port: 8080, Retries: 3, Timeout: 30}
		configs = append(configs, c)
		rep.IdenticalConfigs.Addrs = append(rep.IdenticalConfigs.Addrs, hexAddr(uintptr(unsafe.Pointer(c))))
	}
	// What the Padded values were charged, measured until nothing else (a
	// runtime goroutine, the blocked ones' wake-ups) allocated meanwhile;
	// the values of a disturbed try are garbage.
	var charged uint64
	for try := 0; try < 10; try++ {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range padded {
			padded[i] = new(Padded)
		}
		runtime.ReadMemStats(&after)
		if charged = after.TotalAlloc - before.TotalAlloc; charged%paddedCount == 0 {
			break
		}
	}
	for i := 0; i < shrunkPeak; i++ {
		shrunk[i] = i
	}
	for i := shrunkLen; i < shrunkPeak; i++ {
		delete(shrunk, i)
	}
	runtime.GC()
	writeDump(dumpPath + ".old")
	crashIf(crashAt == "crash-old")

	// ---- the leaks grow ----
	for i := 0; i < sessionsAdded; i++ {
		s := newSession()
		sessions[s.ID] = s
		rep.Sessions.NewAddrs = append(rep.Sessions.NewAddrs, hexAddr(uintptr(unsafe.Pointer(s))))
	}
	for i := 0; i < buffersAdded; i++ {
		go holdBuffer()
		rep.Buffers.NewAddrs = append(rep.Buffers.NewAddrs, hexAddr(<-started))
	}
	for i := headsOld; i < headsOld+headsAdded; i++ {
		addHead(&rep, i)
	}
	for i := dupStringOld; i < dupStringNew; i++ {
		addString(&rep)
	}
	runtime.GC()
	for i := 0; i < garbageCount; i++ {
		garbageSink = new(garbage96)
	}
	garbageSink = nil

	rep.Sessions.Global = "main.sessions"
	rep.Sessions.MapAddr = hexAddr(*(*uintptr)(unsafe.Pointer(&sessions)))
	rep.Sessions.Type = fmt.Sprintf("%T", Session{})
	rep.Sessions.Size = uint64(unsafe.Sizeof(Session{}))
	rep.Sessions.Old, rep.Sessions.Added = sessionsOld, sessionsAdded
	rep.Sessions.NewBytes = sessionsAdded * rep.Sessions.Size
	rep.Buffers.Function = "main.holdBuffer"
	rep.Buffers.Size = bufferSize
	rep.Buffers.Old, rep.Buffers.Added = buffersOld, buffersAdded
	rep.Heads.Global, rep.Heads.Old = "main.heads", headsOld
	rep.DupString.Holder, rep.DupString.Copies, rep.DupString.Size = "main.nameCache", dupStringNew, 64
	rep.DupStringOld = dupStringOld
	rep.UniqueStrings = uniqueStrings
	rep.DupBytes.Holder, rep.DupBytes.Copies, rep.DupBytes.Size = "main.blobs", dupBytesCount, dupBytesLen
	rep.IdenticalConfigs.Holder, rep.IdenticalConfigs.Copies = "main.configs", configCount
	rep.IdenticalConfigs.Size = uint64(unsafe.Sizeof(Config{}))
	rep.Padded.Global, rep.Padded.Type = "main.padded", fmt.Sprintf("%T", Padded{})
	rep.Padded.Count, rep.Padded.TypeSize = paddedCount, uint64(unsafe.Sizeof(Padded{}))
	if charged%paddedCount != 0 {
		fmt.Fprintf(os.Stderr, "leaks: %d bytes charged for %d Padded values: something else allocated\n", charged, paddedCount)
		os.Exit(1)
	}
	rep.Padded.SlotSize = charged / paddedCount
	rep.Padded.Wasted = paddedCount * (rep.Padded.SlotSize - rep.Padded.TypeSize)
	rep.Shrunk.Global = "main.shrunk"
	rep.Shrunk.MapAddr = hexAddr(*(*uintptr)(unsafe.Pointer(&shrunk)))
	rep.Shrunk.Peak, rep.Shrunk.Len = shrunkPeak, uint64(len(shrunk))
	rep.Garbage.Count, rep.Garbage.Size = garbageCount, uint64(unsafe.Sizeof(garbage96{}))

	writeDump(dumpPath)
	out, err := json.MarshalIndent(&rep, "", "  ")
	if err == nil {
		err = os.WriteFile(reportPath, append(out, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaks:", err)
		os.Exit(1)
	}
	crashIf(crashAt == "crash-new")
}

// crashIf dies of SIGABRT when asked, with a core when GOTRACEBACK=crash and
// the core limit allow it.
func crashIf(now bool) {
	if !now {
		return
	}
	debug.SetTraceback("crash")
	syscall.Kill(os.Getpid(), syscall.SIGABRT)
	// Sleeping, not blocked for ever: with every goroutine blocked the
	// runtime would report a deadlock while it handles the signal.
	time.Sleep(10 * time.Second)
	os.Exit(3) // the signal did not kill us
}
