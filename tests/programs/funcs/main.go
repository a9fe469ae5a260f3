// Command funcs makes heap objects and roots that only an executable can
// name: closures and method values (a heap object whose first word is its
// function's entry), finalizers with named functions, and a goroutine
// blocked with a heap-allocated defer. It writes a heap dump with
// runtime/debug.WriteHeapDump and a JSON report of what it made, named by
// the runtime itself (runtime.FuncForPC), so that goheap's names can be
// checked against an oracle that shares none of its code.
//
// Usage: funcs DUMP_PATH REPORT_PATH
//
// The report's schema (addresses are "0x" + lower-case hex, as %p prints):
//
//	go_version, goarch
//	closures   = [{addr, function}]: a closure or method value on the heap
//	             (the funcval the func value points at) and the name
//	             runtime.FuncForPC gives its code pointer
//	finalizers = [{addr, function}]: an object with a finalizer, and the
//	             finalizer's function
//	defer_in   = the function blocked with a defer in a loop (so the
//	             runtime keeps a defer record for it in the dump)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"time"
	"unsafe"
)

type counter struct {
	n    int
	name string
}

//go:noinline
func (c *counter) inc() int { c.n++; return c.n }

//go:noinline
func makeAdder(base int) func(int) int {
	return func(x int) int { return base + x }
}

//go:noinline
func makeGreeter(greeting string, times int) func() string {
	return func() string {
		s := ""
		for i := 0; i < times; i++ {
			s += greeting
		}
		return s
	}
}

type resource struct {
	id   int
	data [48]byte
}

//go:noinline
func closeResource(r *resource) { r.id = -1 }

//go:noinline
func releaseCounter(c *counter) { c.n = 0 }

// Kept alive by these globals until the dump is written.
var (
	adders    []func(int) int
	greeters  []func() string
	methods   []func() int
	resources []*resource
	counters  []*counter
)

type entry struct {
	Addr     string `json:"addr"`
	Function string `json:"function"`
}

type report struct {
	GoVersion  string  `json:"go_version"`
	GoArch     string  `json:"goarch"`
	Closures   []entry `json:"closures"`
	Finalizers []entry `json:"finalizers"`
	DeferIn    string  `json:"defer_in"`
}

// funcvalAddr is where a func value points: the closure object.
func funcvalAddr[F any](f F) string {
	return fmt.Sprintf("%p", *(*unsafe.Pointer)(unsafe.Pointer(&f)))
}

func funcName(f interface{}) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

//go:noinline
func cleanup(step *int) { *step = 0 }

// blockWithDefer defers in a loop, which the compiler cannot turn into an
// open-coded defer: the runtime keeps a _defer record on the goroutine.
func blockWithDefer(ready chan<- struct{}, release <-chan struct{}) {
	steps := make([]int, 2)
	for i := range steps {
		defer cleanup(&steps[i])
	}
	ready <- struct{}{}
	<-release
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: funcs DUMP_PATH REPORT_PATH")
		os.Exit(2)
	}
	rep := report{GoVersion: runtime.Version(), GoArch: runtime.GOARCH, DeferIn: "main.blockWithDefer"}

	for i := 0; i < 4; i++ {
		a := makeAdder(i * 10)
		adders = append(adders, a)
		rep.Closures = append(rep.Closures, entry{funcvalAddr(a), funcName(a)})
		g := makeGreeter(fmt.Sprint("hi", i), i+1)
		greeters = append(greeters, g)
		rep.Closures = append(rep.Closures, entry{funcvalAddr(g), funcName(g)})
		c := &counter{name: fmt.Sprint("c", i)}
		counters = append(counters, c)
		m := c.inc // a method value: a closure of the -fm wrapper
		methods = append(methods, m)
		rep.Closures = append(rep.Closures, entry{funcvalAddr(m), funcName(m)})
	}
	for i := 0; i < 3; i++ {
		r := &resource{id: i}
		runtime.SetFinalizer(r, closeResource)
		resources = append(resources, r)
		rep.Finalizers = append(rep.Finalizers, entry{fmt.Sprintf("%p", r), funcName(closeResource)})
	}
	runtime.SetFinalizer(counters[0], releaseCounter)
	rep.Finalizers = append(rep.Finalizers,
		entry{fmt.Sprintf("%p", counters[0]), funcName(releaseCounter)})

	ready := make(chan struct{})
	release := make(chan struct{})
	go blockWithDefer(ready, release)
	<-ready
	time.Sleep(10 * time.Millisecond) // let it block on release

	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	f.Close()
	close(release)

	out, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	runtime.KeepAlive(adders)
	runtime.KeepAlive(greeters)
	runtime.KeepAlive(methods)
	runtime.KeepAlive(resources)
}
