// Command retention builds heap structures whose shape, size and addresses it
// knows, writes a heap dump with runtime/debug.WriteHeapDump and a JSON report
// of what it built, so that goheap's answers can be checked against an oracle
// that does not share goheap's code.
//
// Usage: retention DUMP_PATH REPORT_PATH
//
// Standard library only; builds with Go 1.19 and later on 32- and 64-bit,
// little- and big-endian targets. Every struct is padded so that its size is a
// Go size class on every target (32, 64 or 128 bytes), so an object's slot in
// the dump is exactly its type's size and the expected byte counts are exact.
//
// The report's schema (all addresses are "0x" + lower-case hex, as %p prints):
//
//	go_version, goarch, ptr_size, big_endian
//	objects[label]    = {addr, size, type}: size = unsafe.Sizeof of the value
//	                    stored at addr, type = %T of that value (the pointee, so
//	                    "main.Dog", not "*main.Dog"); for string data "string"
//	                    with size = len. Labels: tree_root, chain_0..chain_9,
//	                    session_0..session_99 (in sessionCache),
//	                    active_sessions (the []*Session backing array) and
//	                    active_session_0..7, dog, finalized, held_buffer,
//	                    str_greeting, str_motd, str_dup_a, str_dup_b (the last
//	                    two have equal contents).
//	structures[label] = {root_addr, holder, count, bytes}: holder is the global
//	                    ("main.x") or function ("main.f") that alone keeps it;
//	                    count/bytes cover the structure's main objects only
//	                    (tree nodes; Session values, not map internals or keys;
//	                    the buffer), so a retained size must be >= bytes.
//	                    Labels: retained_tree, session_cache (root_addr = the
//	                    map header, count = entries), held_buffer.
//	paths             = [{global, target_addr, hops}]: hops counts the
//	                    global's slot -> first object as one.
//	goroutines        = every goroutine runtime.Stack(buf, true) printed just
//	                    before the dump: {id, state, top_function[, label]}.
//	                    state is the bracketed wait reason without ", N
//	                    minutes" / ", locked to thread"; top_function is the
//	                    first frame the traceback shows (runtime.* frames are
//	                    hidden there, so "time.Sleep" or
//	                    "sync.runtime_SemacquireMutex", not "runtime.gopark").
//	                    label marks the program's own: main, hold_buffer,
//	                    sleeper, lock_waiter, selecter, select_forever, sender.
//	                    System goroutines (GC workers, finalizer) are not
//	                    printed by runtime.Stack but are in the dump, and the
//	                    main goroutine is "running" here but waiting in the
//	                    dump: wait reason "dumping heap" in Go 1.24; Go
//	                    1.19 sets that on g0 instead, so main keeps a stale
//	                    one (here "wait for GC cycle", from runtime.GC).
//	garbage           = {count_at_least, size}: unreachable objects in the dump
//	finalizers        = addresses of the objects this program set finalizers
//	                    on (the dump also has the runtime's os.File ones).
//
// check-report.py (next to this folder) checks all of it against the dump.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Every allocation from package initialisation on gets an alloc sample (tag 17).
var _ = func() int { runtime.MemProfileRate = 1; return 0 }()

const ptrSize = unsafe.Sizeof(uintptr(0))

// treeNode is exactly 64 bytes on every target.
type treeNode struct {
	left, right *treeNode
	id          uint64
	_           [64 - 2*ptrSize - 8]byte
}

// chainNode is exactly 32 bytes.
type chainNode struct {
	next *chainNode
	id   uint64
	_    [32 - ptrSize - 8]byte
}

// Session is exactly 128 bytes.
type Session struct {
	ID      string
	User    string
	Data    []byte
	Created int64
	Hits    int64
	_       [128 - 7*ptrSize - 16]byte
}

// Speaker is a named interface with a method, so a *Dog stored in it gets an itab.
type Speaker interface{ Speak() string }

// Dog is exactly 32 bytes.
type Dog struct {
	Name string
	Age  int64
	_    [32 - 2*ptrSize - 8]byte
}

func (d *Dog) Speak() string { return d.Name + " says woof" }

// finalized is exactly 32 bytes; it carries a finalizer that never runs
// because the object stays reachable.
type finalized struct {
	self *finalized
	id   uint64
	_    [32 - ptrSize - 8]byte
}

// garbage48 is exactly 48 bytes (a size class; not tiny-allocated as it holds a pointer).
type garbage48 struct {
	p *garbage48
	_ [48 - ptrSize]byte
}

const (
	treeDepth    = 10 // 2^10-1 = 1023 nodes
	chainLen     = 10
	sessionCount = 100
	activeCount  = 8
	bufferSize   = 65536 // 8 pages: a large object whose slot is exactly its size
	garbageCount = 1000
)

var (
	retainedTree   *treeNode
	chainHead      *chainNode
	sessionCache   map[string]*Session
	activeSessions []*Session // 8 Sessions of their own, not in sessionCache
	sink           Speaker
	finalizedObj   *finalized
	greeting       string // 64 bytes of string data
	motd           string // 128 bytes
	dupA, dupB     string // two separate 32-byte copies of the same text
	garbageSink    *garbage48

	heldMu     sync.Mutex // held by main so lockWaiter blocks
	release    = make(chan struct{})
	neverA     = make(chan int)
	neverB     = make(chan int)
	unreceived = make(chan int)
)

// Constructors are not inlined so that every value is heap-allocated here and
// not statically laid out in the data segment or on main's stack.

//go:noinline
func buildTree(depth int, next *uint64) *treeNode {
	if depth == 0 {
		return nil
	}
	n := &treeNode{id: *next}
	*next++
	n.left = buildTree(depth-1, next)
	n.right = buildTree(depth-1, next)
	return n
}

//go:noinline
func newChainNode(id uint64) *chainNode { return &chainNode{id: id} }

//go:noinline
func newSession(id, user string, n int) *Session {
	return &Session{ID: id, User: user, Data: make([]byte, n), Created: time.Now().Unix()}
}

//go:noinline
func newDog(name string) *Dog { return &Dog{Name: name, Age: 3} }

//go:noinline
func newBuffer(n int) []byte { return make([]byte, n) }

//go:noinline
func newGarbage() *garbage48 { return new(garbage48) }

//go:noinline
func heapString(prefix byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = prefix + byte(i%26)
	}
	return string(b)
}

// The goroutines' functions are not inlined, so that their frames in the dump
// and in the traceback carry their own names (Go 1.21+ could otherwise inline
// a small one into the go statement's main.main.gowrapN wrapper).

// holdBuffer's frame holds the only pointer to a 64 KiB buffer while it waits
// in a channel receive.
//
//go:noinline
func holdBuffer(addr chan<- uintptr, done <-chan struct{}) {
	buf := newBuffer(bufferSize)
	buf[0], buf[bufferSize-1] = 'H', 'B'
	addr <- uintptr(unsafe.Pointer(&buf[0]))
	<-done
	runtime.KeepAlive(buf)
}

//go:noinline
func sleeper() { time.Sleep(24 * time.Hour) }

//go:noinline
func lockWaiter() { heldMu.Lock(); heldMu.Unlock() }

//go:noinline
func selectForever() { select {} }

//go:noinline
func sender() { unreceived <- 1 }

//go:noinline
func selecter() {
	select {
	case <-neverA:
	case <-neverB:
	}
}

// typeName is what %T prints for a T, found without copying a T into an
// interface (a copy would be a heap object pointing into the structures).
func typeName[T any]() string {
	var p *T
	return strings.TrimPrefix(fmt.Sprintf("%T", p), "*")
}

func hexAddr(p uintptr) string { return "0x" + strconv.FormatUint(uint64(p), 16) }

type object struct {
	Addr string `json:"addr"`
	Size uint64 `json:"size"`
	Type string `json:"type"`
}

type structure struct {
	RootAddr string `json:"root_addr"`
	Holder   string `json:"holder"`
	Count    int    `json:"count"`
	Bytes    uint64 `json:"bytes"`
}

type path struct {
	Global     string `json:"global"`
	TargetAddr string `json:"target_addr"`
	Hops       int    `json:"hops"`
}

type goroutine struct {
	ID          int64  `json:"id"`
	State       string `json:"state"`
	TopFunction string `json:"top_function"`
	Label       string `json:"label,omitempty"`
}

type garbageInfo struct {
	CountAtLeast int    `json:"count_at_least"`
	Size         uint64 `json:"size"`
}

type report struct {
	GoVersion  string               `json:"go_version"`
	GOARCH     string               `json:"goarch"`
	PtrSize    uint64               `json:"ptr_size"`
	BigEndian  bool                 `json:"big_endian"`
	Objects    map[string]object    `json:"objects"`
	Structures map[string]structure `json:"structures"`
	Paths      []path               `json:"paths"`
	Goroutines []goroutine          `json:"goroutines"`
	Garbage    garbageInfo          `json:"garbage"`
	Finalizers []string             `json:"finalizers"`
}

// goroutineLabels maps a function of this program to the label of the
// goroutine whose stack contains it.
var goroutineLabels = map[string]string{
	"main.main":          "main",
	"main.holdBuffer":    "hold_buffer",
	"main.sleeper":       "sleeper",
	"main.lockWaiter":    "lock_waiter",
	"main.selecter":      "selecter",
	"main.selectForever": "select_forever",
	"main.sender":        "sender",
}

// funcName strips the argument list from a traceback line such as
// "sync.(*Mutex).Lock(0xc000010000)" or "main.f(...)".
func funcName(line string) string {
	line = strings.TrimSpace(line)
	if !strings.HasSuffix(line, ")") {
		return line
	}
	depth := 0
	for i := len(line) - 1; i >= 0; i-- {
		switch line[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return line[:i]
			}
		}
	}
	return line
}

// parseStacks parses the output of runtime.Stack(buf, true).
func parseStacks(text string) []goroutine {
	var out []goroutine
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(block, "\n")
		// "goroutine 18 [chan receive, 2 minutes]:"
		head := lines[0]
		if !strings.HasPrefix(head, "goroutine ") {
			continue
		}
		open, close := strings.IndexByte(head, '['), strings.LastIndexByte(head, ']')
		if open < 0 || close < open {
			continue
		}
		id, err := strconv.ParseInt(strings.TrimSpace(head[len("goroutine "):open]), 10, 64)
		if err != nil {
			continue
		}
		state := head[open+1 : close]
		if i := strings.Index(state, ", "); i >= 0 {
			state = state[:i] // drop ", N minutes" and ", locked to thread"
		}
		g := goroutine{ID: id, State: state}
		first := true
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") || l == "" || strings.HasPrefix(l, "created by ") ||
				strings.HasPrefix(l, "...") {
				continue
			}
			fn := funcName(l)
			if first {
				g.TopFunction = fn
				first = false
			}
			if lab, ok := goroutineLabels[fn]; ok && g.Label == "" {
				g.Label = lab
			}
		}
		out = append(out, g)
	}
	return out
}

func allStacks() string {
	buf := make([]byte, 16<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// waitBlocked waits until every goroutine this program started is parked, so
// that the traceback and the dump show them in their blocking calls.
func waitBlocked(want int) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		parked := 0
		for _, g := range parseStacks(allStacks()) {
			if g.Label != "" && g.Label != "main" && g.State != "running" && g.State != "runnable" {
				parked++
			}
		}
		if parked >= want {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "retention: only %d of %d goroutines parked; going on\n", parked, want)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: retention DUMP_PATH REPORT_PATH")
		os.Exit(2)
	}
	dumpPath, reportPath := os.Args[1], os.Args[2]

	rep := report{
		GoVersion:  runtime.Version(),
		GOARCH:     runtime.GOARCH,
		PtrSize:    uint64(ptrSize),
		Objects:    map[string]object{},
		Structures: map[string]structure{},
		Finalizers: []string{},
	}
	one := uint16(1)
	rep.BigEndian = *(*byte)(unsafe.Pointer(&one)) == 0

	// Binary tree of 1023 nodes, reachable only through retainedTree.
	var next uint64
	retainedTree = buildTree(treeDepth, &next)
	rep.Objects["tree_root"] = object{fmt.Sprintf("%p", retainedTree), uint64(unsafe.Sizeof(treeNode{})), typeName[treeNode]()}
	rep.Structures["retained_tree"] = structure{fmt.Sprintf("%p", retainedTree), "main.retainedTree", int(next), next * uint64(unsafe.Sizeof(treeNode{}))}

	// Linked list of 10 nodes: main.chainHead -> chain_0 -> ... -> chain_9.
	var tail *chainNode
	for i := 0; i < chainLen; i++ {
		n := newChainNode(uint64(i))
		if tail == nil {
			chainHead = n
		} else {
			tail.next = n
		}
		tail = n
	}
	i := 0
	for n := chainHead; n != nil; n = n.next {
		rep.Objects[fmt.Sprintf("chain_%d", i)] = object{fmt.Sprintf("%p", n), uint64(unsafe.Sizeof(*n)), typeName[chainNode]()}
		i++
	}
	rep.Paths = append(rep.Paths, path{"main.chainHead", fmt.Sprintf("%p", tail), chainLen})
	tail = nil

	// A session cache of 100 entries.
	sessionCache = make(map[string]*Session)
	for i := 0; i < sessionCount; i++ {
		id := fmt.Sprintf("session-%08d", i) // 16 bytes
		s := newSession(id, "user"+strconv.Itoa(i%7), 32)
		sessionCache[id] = s
		rep.Objects[fmt.Sprintf("session_%d", i)] = object{fmt.Sprintf("%p", s), uint64(unsafe.Sizeof(*s)), typeName[Session]()}
	}
	rep.Structures["session_cache"] = structure{fmt.Sprintf("%p", sessionCache), "main.sessionCache", len(sessionCache), uint64(len(sessionCache)) * uint64(unsafe.Sizeof(Session{}))}

	// A []*Session with Sessions of its own.
	activeSessions = make([]*Session, activeCount)
	for i := range activeSessions {
		activeSessions[i] = newSession(fmt.Sprintf("active-%08d", i), "admin", 16)
		rep.Objects[fmt.Sprintf("active_session_%d", i)] = object{fmt.Sprintf("%p", activeSessions[i]), uint64(unsafe.Sizeof(Session{})), typeName[Session]()}
	}
	rep.Objects["active_sessions"] = object{fmt.Sprintf("%p", &activeSessions[0]), uint64(activeCount * ptrSize), typeName[[activeCount]*Session]()}

	// An interface value with an itab.
	sink = newDog("rex")
	dog := sink.(*Dog)
	rep.Objects["dog"] = object{fmt.Sprintf("%p", dog), uint64(unsafe.Sizeof(*dog)), typeName[Dog]()}
	dog = nil

	// An object with a finalizer that never runs.
	finalizedObj = &finalized{id: 42}
	finalizedObj.self = finalizedObj
	runtime.SetFinalizer(finalizedObj, func(f *finalized) { fmt.Fprintln(os.Stderr, "finalized", f.id) })
	rep.Objects["finalized"] = object{fmt.Sprintf("%p", finalizedObj), uint64(unsafe.Sizeof(*finalizedObj)), typeName[finalized]()}
	rep.Finalizers = append(rep.Finalizers, fmt.Sprintf("%p", finalizedObj))

	// Strings: string data is a pointer-free object whose slot is its length.
	greeting = heapString('a', 64)
	motd = heapString('A', 128)
	dupA = heapString('d', 32)
	dupB = heapString('d', 32)
	for _, s := range []struct {
		label string
		s     string
	}{{"greeting", greeting}, {"motd", motd}, {"dup_a", dupA}, {"dup_b", dupB}} {
		data := *(*uintptr)(unsafe.Pointer(&s.s)) // the string header's data word
		rep.Objects["str_"+s.label] = object{hexAddr(data), uint64(len(s.s)), "string"}
	}

	// Goroutines parked in different ways.
	heldMu.Lock()
	bufAddr := make(chan uintptr)
	go holdBuffer(bufAddr, release)
	held := <-bufAddr
	rep.Objects["held_buffer"] = object{hexAddr(held), bufferSize, typeName[[bufferSize]byte]()}
	rep.Structures["held_buffer"] = structure{hexAddr(held), "main.holdBuffer", 1, bufferSize}
	go sleeper()
	go lockWaiter()
	go selecter()
	go selectForever()
	go sender()
	waitBlocked(6)

	runtime.GC()

	// Garbage: allocated after the last GC, so still in the dump but unreachable.
	for i := 0; i < garbageCount; i++ {
		garbageSink = newGarbage()
	}
	garbageSink = nil
	rep.Garbage = garbageInfo{garbageCount, uint64(unsafe.Sizeof(garbage48{}))}

	rep.Goroutines = parseStacks(allStacks())

	f, err := os.Create(dumpPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "retention:", err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "retention:", err)
		os.Exit(1)
	}

	out, err := json.MarshalIndent(&rep, "", "  ")
	if err == nil {
		err = os.WriteFile(reportPath, append(out, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "retention:", err)
		os.Exit(1)
	}

	runtime.KeepAlive(retainedTree)
	runtime.KeepAlive(chainHead)
	runtime.KeepAlive(sessionCache)
	runtime.KeepAlive(activeSessions)
	runtime.KeepAlive(sink)
	runtime.KeepAlive(finalizedObj)
	runtime.KeepAlive(greeting)
	runtime.KeepAlive(motd)
	runtime.KeepAlive(dupA)
	runtime.KeepAlive(dupB)
}
