// goroutineprog: usage `goroutineprog REPORT`. Starts goroutines blocked in
// known ways (a channel receive, a select, a sync.Mutex, time.Sleep, and a
// channel receive at the bottom of a chain of functions that are not
// inlined), writes REPORT (JSON, below) with each one's goroutine id and the
// functions of its own code that its stack must show, then dies of SIGABRT
// with the traceback level "crash": the runtime prints every goroutine's
// traceback on stderr and the kernel writes a core. goheap's tests read the
// goroutines from the core and compare them with that traceback.
//
// REPORT:
//
//	{"pid": 123,
//	 "goroutines": [{"name": "chain", "goid": 7,
//	                 "funcs": ["main.chain3", "main.chain2", "main.chain1"]}, ...]}
//
// "funcs" are innermost first, as a traceback lists them.
package main

import (
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type blocked struct {
	Name  string   `json:"name"`
	Goid  uint64   `json:"goid"`
	Funcs []string `json:"funcs"`
}

// goid parses the id out of runtime.Stack's first line, "goroutine 7 [running]:".
func goid() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	fields := strings.Fields(string(buf))
	if len(fields) < 2 {
		return 0
	}
	id, _ := strconv.ParseUint(fields[1], 10, 64)
	return id
}

var (
	ids     = make(chan blocked, 16)
	never   = make(chan int)
	neither = make(chan string)
	mu      sync.Mutex
)

//go:noinline
func recvForever(name string) {
	ids <- blocked{name, goid(), []string{"main.recvForever"}}
	<-never
}

//go:noinline
func selectForever() {
	ids <- blocked{"select", goid(), []string{"main.selectForever"}}
	select {
	case <-never:
	case <-neither:
	}
}

//go:noinline
func lockForever() {
	ids <- blocked{"mutex", goid(), []string{"main.lockForever"}}
	mu.Lock()
}

//go:noinline
func sleepLong() {
	ids <- blocked{"sleep", goid(), []string{"main.sleepLong"}}
	time.Sleep(time.Hour)
}

//go:noinline
func chain1() { chain2() }

//go:noinline
func chain2() { chain3() }

//go:noinline
func chain3() { chain4() }

//go:noinline
func chain4() {
	ids <- blocked{"chain", goid(), []string{"main.chain4", "main.chain3", "main.chain2", "main.chain1"}}
	<-never
}

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: goroutineprog REPORT\n")
		os.Exit(2)
	}
	mu.Lock() // held by main: lockForever blocks
	starts := []func(){
		func() { recvForever("chan") },
		selectForever,
		lockForever,
		sleepLong,
		chain1,
	}
	for _, f := range starts {
		go f()
	}
	var all []blocked
	for range starts {
		all = append(all, <-ids)
	}
	// Let each block: the report is written before they all have, but the
	// crash waits until none is runnable.
	for i := 0; i < 200; i++ {
		time.Sleep(5 * time.Millisecond)
		if runtime.NumGoroutine() >= len(starts)+1 {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	out, err := json.Marshal(map[string]any{"pid": os.Getpid(), "goroutines": all})
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(os.Args[1], out, 0o644); err != nil {
		panic(err)
	}
	debug.SetTraceback("crash")
	syscall.Kill(os.Getpid(), syscall.SIGABRT)
	time.Sleep(time.Minute)
}
