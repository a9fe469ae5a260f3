// inlining is the oracle for goheap's inlined-frame expansion
// (bin::Binary::symbolize): it captures stacks with runtime.Callers from
// inside functions the compiler inlines, several levels deep, and reports
// what the runtime itself makes of every captured PC.
//
// usage: inlining DUMP REPORT
//
// DUMP gets a heap dump (runtime/debug.WriteHeapDump), as every test program
// writes one; REPORT gets JSON:
//
//	{"go_version": "go1.24.4",
//	 "stacks": [[{"pc": "0x...",          raw runtime.Callers return address
//	              "func_for_pc": "...",   runtime.FuncForPC(pc-1).Name()
//	              "function": "...", "file": "...", "line": N,
//	              "inlined": true},       runtime.CallersFrames of this one PC
//	             ...], ...],
//	 "allocs": [{"addr": "0x...",           %p of an object allocated inside
//	             "function": "main.newNode", an inlined function, and that
//	             "file": "...", "line": N,  function and line per the runtime
//	             "physical": "main.buildNodes"}, ...]}  (the function it is inlined into)
//
// MemProfileRate is 1, so the dump has an allocation sample for every object:
// the dump names the allocs' site by the physical function with the inlined
// function's line, which goheap must turn back into main.newNode.
//
// runtime.Callers already lists one PC per source frame (inlined calls
// included) and CallersFrames turns each into exactly one frame, so the
// frames from a PC up to the next non-inlined one are the runtime's full
// expansion of that PC.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

type frame struct {
	PC        string `json:"pc"`
	FuncForPC string `json:"func_for_pc"`
	Function  string `json:"function"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Inlined   bool   `json:"inlined"`
}

type alloc struct {
	Addr     string `json:"addr"`
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Physical string `json:"physical"`
}

type report struct {
	GoVersion string    `json:"go_version"`
	Stacks    [][]frame `json:"stacks"`
	Allocs    []alloc   `json:"allocs"`
}

func init() { runtime.MemProfileRate = 1 }

var stacks [][]uintptr

// capture is the one function here that is never inlined: its return
// address lies inside the inlined bodies of its callers.
//
//go:noinline
func capture() int {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	stacks = append(stacks, pcs[:n])
	return n
}

// Small leaves the compiler inlines into their callers, three deep.
func leaf(x int) int   { return capture() + x }
func middle(x int) int { return leaf(x+1) * 2 }
func outer(x int) int  { return middle(x+2) - 1 }

type counter struct{ n int }

// A method inlined into its caller.
func (c *counter) bump() int { c.n += capture(); return c.n }

// A generic function (instantiated, then inlined).
func pick[T any](a, b T, first bool) T {
	capture()
	if first {
		return a
	}
	return b
}

//go:noinline
func physicalA() int { return outer(1) + outer(2) }

//go:noinline
func physicalB() int { return middle(3) }

//go:noinline
func physicalC(c *counter) int { return c.bump() + leaf(4) }

//go:noinline
func physicalD() string { return pick("a", "b", len(stacks) > 0) }

// A closure called in place is inlined as well.
//
//go:noinline
func physicalE() int {
	f := func(y int) int { return leaf(y) + 1 }
	return f(5)
}

type node struct {
	val  [4]int
	next *node
}

var (
	nodes  []*node
	allocs []alloc
)

// mark records where its caller, newNode, allocated n: the line before the
// call (the runtime's own expansion of the return address names newNode).
//
//go:noinline
func mark(n *node) {
	pcs := make([]uintptr, 2)
	runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs)
	f, _ := frames.Next()
	outer, _ := frames.Next()
	allocs = append(allocs, alloc{Addr: fmt.Sprintf("%p", n), Function: f.Function, File: f.File,
		Line: f.Line - 1, Physical: outer.Function})
}

// newNode is inlined into buildNodes.
func newNode(v int) *node {
	n := &node{val: [4]int{v, v, v, v}}
	mark(n)
	return n
}

//go:noinline
func buildNodes() {
	for i := 0; i < 3; i++ {
		nodes = append(nodes, newNode(i))
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: inlining DUMP REPORT")
		os.Exit(2)
	}
	sum := physicalA() + physicalB() + physicalC(&counter{}) + len(physicalD()) + physicalE()
	// Also a stack captured from main itself, with nothing inlined at the top.
	sum += outer(sum & 1)

	buildNodes()
	out := report{GoVersion: runtime.Version(), Allocs: allocs}
	for _, pcs := range stacks {
		var frames []frame
		for _, pc := range pcs {
			f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
			name := ""
			if fn := runtime.FuncForPC(pc - 1); fn != nil {
				name = fn.Name()
			}
			frames = append(frames, frame{
				PC: fmt.Sprintf("0x%x", pc), FuncForPC: name,
				Function: f.Function, File: f.File, Line: f.Line, Inlined: f.Func == nil,
			})
		}
		out.Stacks = append(out.Stacks, frames)
	}

	df, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	debug.WriteHeapDump(df.Fd())
	df.Close()
	runtime.KeepAlive(nodes)
	js, err := json.Marshal(out)
	if err == nil {
		err = os.WriteFile(os.Args[2], js, 0o644)
	}
	if err != nil || sum == 0 {
		fmt.Fprintln(os.Stderr, "inlining:", err, sum)
		os.Exit(1)
	}
}
