// coreprog: usage `coreprog REPORT [DUMP]`. Allocates a few heap values with
// known contents and a few thousand more of several sizes (some larger than
// 32 KiB, some dropped as garbage), writes REPORT (JSON, below) saying where
// they are and what they hold, with DUMP a heap dump
// (runtime/debug.WriteHeapDump), then dies of SIGABRT with the traceback
// level "crash", so that the kernel writes a core file (when the core size
// limit allows). goheap's tests run it, read the core and compare what it
// holds with REPORT, and the heap objects it finds with DUMP's.
//
// REPORT:
//
//	{"pid": 123,
//	 "values": [{"name": "bytes", "addr": "0xc000012345", "hex": "0001..."}, ...],
//	 "rodata": {"addr": "0x4b1234", "text": "..."},
//	 "held": ["0xc000100000", ...],
//	 "finalizers": [{"addr": "0xc000180000", "func": "main.closeRecord"}, ...],
//	 "cleanups": ["0xc000190000", ...]}
//
// Before the dump it also parks three goroutines for the stack scan's test
// (tests/core/stack_scan_test.cpp): one with pending defer records (a defer
// in a loop is never open-coded) and an addressed local array of heap
// pointers (a stack object), one parked inside a deferred call while it
// panics (a _panic record), and one with heap pointers live in its frame.
//
// "values" are heap objects (their bytes are in the core); "rodata" is a
// string constant's bytes in the executable's read-only data (the kernel
// leaves it out of the core: it is read from the executable); "held" are the
// %p addresses of every 50th of the held objects (each lies in a heap object);
// "finalizers" are held objects given a finalizer (runtime.SetFinalizer),
// with the function's name as the pclntab has it; "cleanups" are held
// objects given a cleanup (runtime.AddCleanup, Go 1.24 and later:
// cleanups_go124.go; none before). The build constraints need the package
// built as a whole (go.mod), not main.go alone.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"
)

const marker = "goheap coreprog: a string constant in read-only data"

type record struct {
	ID    uint64
	Score int64
	Tag   [16]byte
	Next  *record
}

type value struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
	Hex  string `json:"hex"`
}

// Held here, so that nothing is freed before the core is written.
var keep []any

//go:noinline
func newBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

//go:noinline
func newRecord(id uint64) *record {
	r := &record{ID: id, Score: -int64(id) * 1000}
	copy(r.Tag[:], fmt.Sprintf("record-%d", id))
	return r
}

// Objects with a finalizer: larger than the tiny allocator's 16 bytes, so
// that each has its own slot.
type finalized struct {
	ID  int
	Pad [24]byte
}

//go:noinline
func closeRecord(f *finalized) { f.ID = -1 }

//go:noinline
func dropRecord(f *finalized) { f.ID = -2 }

type finalizer struct {
	Addr string `json:"addr"`
	Func string `json:"func"`
}

// Sets a finalizer on a few held objects, alternating two functions.
func setFinalizers() []finalizer {
	var out []finalizer
	for i := 0; i < 6; i++ {
		f := &finalized{ID: i}
		keep = append(keep, f)
		if i%2 == 0 {
			runtime.SetFinalizer(f, closeRecord)
			out = append(out, finalizer{fmt.Sprintf("%p", f), "main.closeRecord"})
		} else {
			runtime.SetFinalizer(f, dropRecord)
			out = append(out, finalizer{fmt.Sprintf("%p", f), "main.dropRecord"})
		}
	}
	return out
}

func bytesAt(p unsafe.Pointer, n uintptr) []byte {
	return unsafe.Slice((*byte)(p), n)
}

// The address of a string's bytes (unsafe.StringData is Go 1.20+).
func stringData(s string) unsafe.Pointer {
	return unsafe.Pointer((*reflect.StringHeader)(unsafe.Pointer(&s)).Data)
}

func describe(name string, p unsafe.Pointer, n uintptr) value {
	return value{name, fmt.Sprintf("%p", p), hex.EncodeToString(bytesAt(p, n))}
}

// The moderate heap: objects of several size classes and some large ones,
// all held through `keep` but one in four dropped as garbage. Returns the %p
// of every 50th held object.
func allocateHeap() []string {
	sizes := []int{8, 24, 48, 100, 512, 1500, 4000, 20000, 40000, 100000}
	var held []string
	for i := 0; i < 3000; i++ {
		n := sizes[i%len(sizes)]
		if n > 32<<10 && i%7 != 0 {
			n = 64 // large objects only now and then
		}
		b := newBytes(n)
		if i%4 == 3 {
			continue // garbage
		}
		keep = append(keep, b)
		if len(keep)%50 == 0 {
			held = append(held, fmt.Sprintf("%p", &b[0]))
		}
	}
	for i := 0; i < 500; i++ {
		r := newRecord(uint64(i))
		if i%3 != 0 {
			keep = append(keep, r)
		}
	}
	return held
}

// Fills an array through its address, which makes the caller's array a stack
// object rather than a few pointer words.
//
//go:noinline
func fillRecords(rs *[4]*record, base uint64) {
	for i := range rs {
		rs[i] = newRecord(base + uint64(i))
	}
}

//go:noinline
func noteDeferred(r *record) { r.Score++ }

// Parks with two pending defer records and a stack object holding pointers.
func parkedWithDefers(ready chan<- struct{}, block <-chan struct{}) {
	var rs [4]*record
	fillRecords(&rs, 100)
	for i := 0; i < 2; i++ {
		defer noteDeferred(rs[i])
	}
	ready <- struct{}{}
	<-block
	runtime.KeepAlive(&rs)
}

// Parks inside a deferred call while it panics, so its g has a _panic.
func parkedPanicking(ready chan<- struct{}, block <-chan struct{}) {
	defer func() {
		ready <- struct{}{}
		<-block
	}()
	panic(fmt.Errorf("coreprog: parked while panicking"))
}

// Parks with heap pointers live in its own frame.
//
//go:noinline
func parkedHolding(ready chan<- struct{}, block <-chan struct{}) {
	first, second := newRecord(200), newRecord(201)
	first.Next = second
	ready <- struct{}{}
	<-block
	runtime.KeepAlive(first)
	runtime.KeepAlive(second)
}

// Starts the parked goroutines and waits until each has parked.
func parkGoroutines() {
	ready, block := make(chan struct{}), make(chan struct{})
	go parkedWithDefers(ready, block)
	go parkedPanicking(ready, block)
	go parkedHolding(ready, block)
	for i := 0; i < 3; i++ {
		<-ready
	}
	keep = append(keep, block)
}

// Writes the heap dump to `path`.
func writeDump(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Types whose itabs for fmt.Stringer the runtime makes while the program
// runs (a type assertion of an any to it): such itabs have hash 0, unlike
// the linker's, and the core reader must still find runtime.itabTable
// among them (tests/core/stripped_test.cpp).
type dyn00 int

func (dyn00) String() string { return "dyn00" }

type dyn01 int

func (dyn01) String() string { return "dyn01" }

type dyn02 int

func (dyn02) String() string { return "dyn02" }

type dyn03 int

func (dyn03) String() string { return "dyn03" }

type dyn04 int

func (dyn04) String() string { return "dyn04" }

type dyn05 int

func (dyn05) String() string { return "dyn05" }

type dyn06 int

func (dyn06) String() string { return "dyn06" }

type dyn07 int

func (dyn07) String() string { return "dyn07" }

type dyn08 int

func (dyn08) String() string { return "dyn08" }

type dyn09 int

func (dyn09) String() string { return "dyn09" }

type dyn10 int

func (dyn10) String() string { return "dyn10" }

type dyn11 int

func (dyn11) String() string { return "dyn11" }

type dyn12 int

func (dyn12) String() string { return "dyn12" }

type dyn13 int

func (dyn13) String() string { return "dyn13" }

type dyn14 int

func (dyn14) String() string { return "dyn14" }

type dyn15 int

func (dyn15) String() string { return "dyn15" }

type dyn16 int

func (dyn16) String() string { return "dyn16" }

type dyn17 int

func (dyn17) String() string { return "dyn17" }

type dyn18 int

func (dyn18) String() string { return "dyn18" }

type dyn19 int

func (dyn19) String() string { return "dyn19" }

type dyn20 int

func (dyn20) String() string { return "dyn20" }

type dyn21 int

func (dyn21) String() string { return "dyn21" }

type dyn22 int

func (dyn22) String() string { return "dyn22" }

type dyn23 int

func (dyn23) String() string { return "dyn23" }

// stringers asserts each value to fmt.Stringer at run time, adding an itab
// per type to runtime.itabTable.
//
//go:noinline
func stringers(vs []any) int {
	n := 0
	for _, v := range vs {
		if s, ok := v.(fmt.Stringer); ok && s.String() != "" {
			n++
		}
	}
	return n
}

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: coreprog REPORT [DUMP]")
		os.Exit(2)
	}
	if stringers([]any{dyn00(0), dyn01(0), dyn02(0), dyn03(0), dyn04(0), dyn05(0), dyn06(0), dyn07(0), dyn08(0), dyn09(0), dyn10(0), dyn11(0), dyn12(0), dyn13(0), dyn14(0), dyn15(0), dyn16(0), dyn17(0), dyn18(0), dyn19(0), dyn20(0), dyn21(0), dyn22(0), dyn23(0)}) != 24 {
		fmt.Fprintln(os.Stderr, "coreprog: a dynamic itab is missing")
		os.Exit(1)
	}
	buf := newBytes(200)
	first := newRecord(7)
	second := newRecord(8)
	first.Next = second
	text := string(newBytes(40)) + "-made at run time"
	keep = append(keep, buf, first, second, text)

	var values []value
	values = append(values, describe("bytes", unsafe.Pointer(&buf[0]), uintptr(len(buf))))
	values = append(values, describe("record7", unsafe.Pointer(first), unsafe.Sizeof(*first)))
	values = append(values, describe("record8", unsafe.Pointer(second), unsafe.Sizeof(*second)))
	values = append(values, describe("string", stringData(text), uintptr(len(text))))
	held := allocateHeap()
	finalizers := setFinalizers()
	cleanups := setCleanups()
	parkGoroutines()
	m := marker
	report := map[string]any{
		"held":       held,
		"finalizers": finalizers,
		"cleanups":   cleanups,
		"pid":        os.Getpid(),
		"values":     values,
		"rodata": map[string]string{
			"addr": fmt.Sprintf("%p", stringData(m)),
			"text": m,
		},
	}
	out, err := json.MarshalIndent(report, "", " ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(os.Args[1], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(os.Args) == 3 {
		writeDump(os.Args[2])
	}
	// "crash": on a fatal signal the runtime prints every goroutine, then
	// dies of the signal with its default action, which dumps core.
	debug.SetTraceback("crash")
	syscall.Kill(os.Getpid(), syscall.SIGABRT)
	time.Sleep(10 * time.Second)
	runtime.KeepAlive(keep)
	os.Exit(3) // the signal did not kill us
}
