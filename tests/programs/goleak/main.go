// Command goleak starts goroutines that block forever (leaks) and goroutines
// that block on something still reachable (decoys), writes a heap dump, and
// a JSON report of which goroutines leak, by blocking function: the oracle
// of goheap's offline goroutine-leak analysis (issue 30).
//
// Usage: goleak DUMP REPORT [crash|profile-crash|live]
//
// With crash it dies of SIGABRT after writing the report: under
// GOTRACEBACK=crash the kernel writes a core of the same heap
// (tests/analysis/goroutine_leaks_test.cpp).
//
// Where the runtime has a goroutineleak profile (Go 1.27; 1.26 with
// GOEXPERIMENT=goroutineleakprofile), the report also holds what it finds,
// by blocking function (runtime_profile), taken after the dump: the profile
// marks the goroutines it finds leaked (status _Gleaked), after which
// WriteHeapDump would kill the process. With profile-crash it dies as with
// crash once the profile has marked them: the core shows the marks.
//
// With live it keeps running after the report, for goheap snap
// (tests/acquire/snap_test.cpp): it prints "ready", answers "ping" with
// "pong" on stdin, and exits when stdin closes. It takes no runtime profile
// then, which would leave the marks in the heap snap reads.
//
// The blocking function is the innermost frame outside the packages
// runtime, sync, internal/sync and sync/atomic, as the runtime's
// goroutineleak profile and a reader of the stack both name it. Each leaked
// goroutine but those listed in no_buffer keeps a buffer of its own alive
// from its stack (leak_bytes each), so that what the leaks retain is known
// too.
//
// The leaks:
//   - main.leakRecv, main.leakSend: a receive or send on a channel only the
//     goroutine itself holds;
//   - main.leakSelect: a select over two such channels;
//   - main.leakNilRecv: a receive from a nil channel;
//   - main.leakSelectNoCases: select {};
//   - main.chainHead, main.chainTail: head waits on a channel that only
//     tail holds, and tail on one only it holds: both leak, head only
//     because tail does;
//   - main.leakMutex, main.leakRWMutex, main.leakWaitGroup, main.leakCond:
//     sync waits on a Mutex or RWMutex locked for good, a WaitGroup never
//     done, a Cond never signalled, each held by nothing but its waiters
//     ("sync" in the report: Go 1.25 and older do not link such a waiter to
//     what it waits on), two of each, each on its own primitive. The
//     Mutexes are allocated in a struct with a pointer (lockBox), so that
//     none shares a tiny block with other memory by chance;
//   - main.leakTinyMutex: the same, on a Mutex that shares a 16-byte tiny
//     block on purpose with the 4-byte array of a global slice
//     (main.tinyShared): to the collector the block is one object, which
//     the global keeps, but the slice reaches only its own 4 bytes. The
//     report names the function and the global (tiny_shared): a reader that
//     knows the slice's type finds the goroutine leaked; one that does not
//     counts the block reached, as the runtime's profile does, and must say
//     why the goroutine is not called leaked.
//
// The decoys, blocked but not leaked:
//   - main.waitGlobalChan: a receive on a channel a global holds;
//   - main.waitHeldBySleeper: a receive on a channel that a sleeping
//     goroutine (main.sleeper) holds on its stack;
//   - main.waitTimer: a receive from time.After(1h) (the timer holds it);
//   - main.waitGlobalCond: a Cond.Wait on a Cond a global holds;
//   - main.selectOneReachable: a select with one case on a channel a
//     global holds;
//   - main.waitTinyHeld: a Lock of a Mutex in a tiny block that a global
//     *sync.Mutex holds (main.tinyHeld): a typed pointer that reaches it;
//   - main.waitAccept: an Accept on a loopback listener (network I/O);
//   - main.sleeper: asleep.
//
// GOLEAK_SCALE=K (default 1) starts K times as many of the leaks and decoys
// that take no arguments (main.leakRecv, leakSend, leakSelect,
// waitGlobalChan, waitTimer, selectOneReachable), with the report to
// match: bench/make-bench-dump.sh --goroutines makes a heap of 10,000
// goroutines so.
//
// Standard library only.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const leakBytes = 4096

// How many goroutines each function starts.
var counts = map[string]int{
	"main.leakRecv":           5,
	"main.leakSend":           3,
	"main.leakSelect":         2,
	"main.leakNilRecv":        1,
	"main.leakSelectNoCases":  1,
	"main.chainHead":          1,
	"main.chainTail":          1,
	"main.leakMutex":          2,
	"main.leakRWMutex":        2,
	"main.leakWaitGroup":      2,
	"main.leakCond":           2,
	"main.leakTinyMutex":      1,
	"main.waitGlobalChan":     2,
	"main.waitHeldBySleeper":  1,
	"main.waitTimer":          1,
	"main.waitGlobalCond":     1,
	"main.selectOneReachable": 1,
	"main.waitTinyHeld":       1,
	"main.waitAccept":         1,
	"main.sleeper":            1,
}

// The kind of each leak: "chan" or "sync".
var leakKinds = map[string]string{
	"main.leakRecv":          "chan",
	"main.leakSend":          "chan",
	"main.leakSelect":        "chan",
	"main.leakNilRecv":       "chan",
	"main.leakSelectNoCases": "chan",
	"main.chainHead":         "chan",
	"main.chainTail":         "chan",
	"main.leakMutex":         "sync",
	"main.leakRWMutex":       "sync",
	"main.leakWaitGroup":     "sync",
	"main.leakCond":          "sync",
	"main.leakTinyMutex":     "sync",
}

var (
	globalChan = make(chan int)
	globalCond = sync.NewCond(&sync.Mutex{})
	started    sync.WaitGroup
	sink       []byte
	// Shares its 4-byte array's tiny block with leakTinyMutex's Mutex.
	tinyShared []byte
	// A Mutex in a tiny block, locked, which main.waitTinyHeld waits on.
	tinyHeld *sync.Mutex
)

// lockBox gives a Mutex an allocation of its own: an object with a pointer
// is never packed into a tiny block with other values.
type lockBox struct {
	mu   sync.Mutex
	next *lockBox
}

//go:noinline
func newMutex() *sync.Mutex { return new(sync.Mutex) }

//go:noinline
func newFourBytes() []byte { return make([]byte, 4) }

// sharedTinyMutex returns a Mutex in the same tiny block as tinyShared's
// array. The tiny allocator packs consecutive small allocations into one
// 16-byte block, so of Mutexes and 4-byte arrays allocated in turn some
// pair shares one (which pair depends on the release and the block the
// allocator starts in).
func sharedTinyMutex() *sync.Mutex {
	var mus []*sync.Mutex
	var arrays [][]byte
	for i := 0; i < 64; i++ {
		mus = append(mus, newMutex())
		arrays = append(arrays, newFourBytes())
	}
	for _, mu := range mus {
		for _, b := range arrays {
			if uintptr(unsafe.Pointer(mu))&^15 == uintptr(unsafe.Pointer(&b[0]))&^15 {
				tinyShared = b
				return mu
			}
		}
	}
	panic("goleak: no Mutex shared a tiny block with a 4-byte array")
}

// hold keeps a buffer alive from the caller's stack while it blocks.
//
//go:noinline
func hold() []byte { return make([]byte, leakBytes) }

func keep(b []byte) { sink = b[:0] }

func leakRecv() {
	b := hold()
	ch := make(chan int)
	started.Done()
	<-ch
	keep(b)
}

func leakSend() {
	b := hold()
	ch := make(chan int)
	started.Done()
	ch <- 1
	keep(b)
}

func leakSelect() {
	b := hold()
	a, c := make(chan int), make(chan string)
	started.Done()
	select {
	case <-a:
	case <-c:
	}
	keep(b)
}

func leakNilRecv() {
	b := hold()
	var ch chan int
	started.Done()
	<-ch
	keep(b)
}

// Code after select {} is dead to the compiler, so no stack value of this
// goroutine stays live: it holds no buffer (no_buffer in the report).
func leakSelectNoCases() {
	started.Done()
	select {}
}

func chainHead(ch chan int) {
	b := hold()
	started.Done()
	<-ch
	keep(b)
}

func chainTail() {
	b := hold()
	toHead := make(chan int)
	go chainHead(toHead)
	own := make(chan int)
	started.Done()
	<-own
	toHead <- 1
	keep(b)
}

func leakMutex(mu *sync.Mutex) {
	b := hold()
	started.Done()
	mu.Lock()
	keep(b)
}

func leakRWMutex(mu *sync.RWMutex) {
	b := hold()
	started.Done()
	mu.Lock()
	keep(b)
}

func leakTinyMutex(mu *sync.Mutex) {
	b := hold()
	started.Done()
	mu.Lock()
	keep(b)
}

func leakWaitGroup(wg *sync.WaitGroup) {
	b := hold()
	started.Done()
	wg.Wait()
	keep(b)
}

func leakCond(c *sync.Cond) {
	b := hold()
	c.L.Lock()
	started.Done()
	c.Wait()
	keep(b)
}

func waitGlobalChan() {
	started.Done()
	<-globalChan
}

func waitHeldBySleeper(ch chan int) {
	started.Done()
	<-ch
}

func sleeper(ch chan int) {
	started.Done()
	time.Sleep(time.Hour)
	ch <- 1
}

func waitTimer() {
	started.Done()
	<-time.After(time.Hour)
}

func waitGlobalCond() {
	globalCond.L.Lock()
	started.Done()
	globalCond.Wait()
	globalCond.L.Unlock()
}

func selectOneReachable() {
	own := make(chan int)
	started.Done()
	select {
	case <-own:
	case <-globalChan:
	}
}

func waitTinyHeld() {
	started.Done()
	tinyHeld.Lock()
	tinyHeld.Unlock()
}

func waitAccept(l net.Listener) {
	started.Done()
	c, err := l.Accept()
	if err == nil {
		c.Close()
	}
}

type report struct {
	GoVersion string            `json:"go_version"`
	LeakBytes int               `json:"leak_bytes"`
	Leaked    map[string]int    `json:"leaked"`     // blocking function: goroutines
	LeakKinds map[string]string `json:"leak_kinds"` // blocking function: "chan" or "sync"
	NotLeaked map[string]int    `json:"not_leaked"` // the decoys
	// The runtime's goroutineleak profile, by blocking function; absent
	// where the runtime has none.
	RuntimeProfile map[string]int `json:"runtime_profile,omitempty"`
	NoBuffer       []string       `json:"no_buffer"` // leaks that hold no buffer
	// The leak on a Mutex in a tiny block with a global's bytes.
	TinyShared struct {
		Function string `json:"function"`
		Holder   string `json:"holder"`
		// The global's address (%p), and the block's start
		HolderAddress string `json:"holder_address"`
		Block         string `json:"block"`
		Offset        uint64 `json:"mutex_offset"` // of the Mutex in the block
	} `json:"tiny_shared"`
}

func main() {
	mode := ""
	if len(os.Args) == 4 {
		mode = os.Args[3]
	}
	if len(os.Args) < 3 || len(os.Args) > 4 || (mode != "" && mode != "crash" && mode != "profile-crash" && mode != "live") {
		fmt.Fprintln(os.Stderr, "usage: goleak DUMP REPORT [crash|profile-crash|live]")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "goleak:", err)
		os.Exit(1)
	}
	if k, err := strconv.Atoi(os.Getenv("GOLEAK_SCALE")); err == nil && k > 1 {
		for _, fn := range []string{"main.leakRecv", "main.leakSend", "main.leakSelect",
			"main.waitGlobalChan", "main.waitTimer", "main.selectOneReachable"} {
			counts[fn] *= k
		}
	}
	start := func(n int, f func()) {
		for i := 0; i < n; i++ {
			started.Add(1)
			go f()
		}
	}
	start(counts["main.leakRecv"], leakRecv)
	start(counts["main.leakSend"], leakSend)
	start(counts["main.leakSelect"], leakSelect)
	start(counts["main.leakNilRecv"], leakNilRecv)
	start(counts["main.leakSelectNoCases"], leakSelectNoCases)
	started.Add(2) // tail and the head it starts
	go chainTail()
	for i := 0; i < counts["main.leakMutex"]; i++ {
		box := new(lockBox)
		box.mu.Lock()
		started.Add(1)
		go leakMutex(&box.mu)
	}
	for i := 0; i < counts["main.leakRWMutex"]; i++ {
		rw := new(sync.RWMutex)
		rw.Lock()
		started.Add(1)
		go leakRWMutex(rw)
	}
	for i := 0; i < counts["main.leakWaitGroup"]; i++ {
		wg := new(sync.WaitGroup)
		wg.Add(1)
		started.Add(1)
		go leakWaitGroup(wg)
	}
	for i := 0; i < counts["main.leakCond"]; i++ {
		started.Add(1)
		go leakCond(sync.NewCond(&new(lockBox).mu))
	}
	tiny := sharedTinyMutex()
	tiny.Lock()
	started.Add(1)
	go leakTinyMutex(tiny)
	tinyOffset := uint64(uintptr(unsafe.Pointer(tiny)) & 15)
	start(counts["main.waitGlobalChan"], waitGlobalChan)
	held := make(chan int)
	started.Add(2)
	go waitHeldBySleeper(held)
	go sleeper(held)
	start(counts["main.waitTimer"], waitTimer)
	start(counts["main.waitGlobalCond"], waitGlobalCond)
	start(counts["main.selectOneReachable"], selectOneReachable)
	tinyHeld = newMutex()
	tinyHeld.Lock()
	start(counts["main.waitTinyHeld"], waitTinyHeld)
	started.Add(1)
	go waitAccept(l)
	started.Wait()
	tiny, held = nil, nil
	// Every goroutine reaches its blocking call, and the ones that lock a
	// Mutex or wait on a Cond are parked on it, before the dump.
	for i := 0; i < 50; i++ {
		runtime.Gosched()
		time.Sleep(2 * time.Millisecond)
	}
	runtime.GC()

	rep := report{
		GoVersion: runtime.Version(),
		LeakBytes: leakBytes,
		Leaked:    map[string]int{},
		LeakKinds: leakKinds,
		NotLeaked: map[string]int{},
		NoBuffer:  []string{"main.leakSelectNoCases"},
	}
	rep.TinyShared.Function = "main.leakTinyMutex"
	rep.TinyShared.Holder = "main.tinyShared"
	rep.TinyShared.Offset = tinyOffset
	rep.TinyShared.HolderAddress = fmt.Sprintf("%p", &tinyShared)
	rep.TinyShared.Block = fmt.Sprintf("%#x", uintptr(unsafe.Pointer(&tinyShared[0]))&^15)
	for f, n := range counts {
		if _, leaks := leakKinds[f]; leaks {
			rep.Leaked[f] = n
		} else {
			rep.NotLeaked[f] = n
		}
	}
	// The dump comes first: on Go 1.27 WriteHeapDump kills the process once
	// the goroutineleak profile has marked goroutines leaked.
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "goleak:", err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	f.Close()
	if mode != "crash" && mode != "live" {
		rep.RuntimeProfile = runtimeProfile()
	}
	out, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(os.Args[2], append(out, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goleak:", err)
		os.Exit(1)
	}
	keep(globalChanHolder())
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
	if mode != "" {
		// The core's heap is the dump's.
		debug.SetTraceback("crash")
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		time.Sleep(10 * time.Second)
		os.Exit(3) // the signal did not kill us
	}
}

// globalChanHolder reads the globals once more, so that the linker keeps
// them as the decoys' holders.
func globalChanHolder() []byte {
	if globalChan == nil || globalCond == nil || tinyShared == nil || tinyHeld == nil {
		return nil
	}
	return sink
}

// runtimeProfile runs the runtime's goroutineleak profile and counts the
// goroutines it reports by blocking function: the first function of each
// stack outside runtime, sync, internal/sync and sync/atomic. Nil where
// there is no such profile.
func runtimeProfile() map[string]int {
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		return nil
	}
	var text strings.Builder
	if err := p.WriteTo(&text, 1); err != nil {
		return nil
	}
	// debug=1: "N @ pc pc ..." starts a record of N goroutines, and each
	// "#\tpc\tfunction+offset\tfile:line" line is a frame, innermost first.
	counts := map[string]int{}
	n, found := 0, false
	for _, line := range strings.Split(text.String(), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[1] == "@" {
			n, _ = strconv.Atoi(fields[0])
			found = false
			continue
		}
		parts := strings.Split(line, "\t")
		if found || len(parts) < 4 || parts[0] != "#" {
			continue
		}
		fn := parts[2]
		if i := strings.LastIndex(fn, "+0x"); i > 0 {
			fn = fn[:i]
		}
		if !inPackage(fn, "runtime") && !inPackage(fn, "sync") && !inPackage(fn, "internal/sync") &&
			!inPackage(fn, "sync/atomic") {
			counts[fn] += n
			found = true
		}
	}
	return counts
}

func inPackage(fn, pkg string) bool {
	return strings.HasPrefix(fn, pkg+".")
}
