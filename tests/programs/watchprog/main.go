// Command watchprog leaks on purpose, all the time, for goheap watch
// (tests/cli/watch_test.cpp): every 5 ms it appends one *main.LeakedRecord,
// each holding a buffer of BYTES bytes (default 2048), to a slice that a
// global keeps alive, so that one type grows steadily while the process
// runs.
//
// Usage: watchprog [BYTES]
//
// It prints "ready" once the first records are held, then answers on its
// standard input, one line each:
//   - "count": "count N", the records it has leaked so far;
//   - "heapinuse": "heapinuse N", runtime.MemStats.HeapInuse now;
//   - "pause": stops leaking ("paused"); "resume" starts again ("resumed").
// It exits when its standard input closes.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// LeakedRecord is the type that grows: its count and bytes are what the
// test expects goheap diff to name.
type LeakedRecord struct {
	ID      int
	Payload []byte
	Next    *LeakedRecord
}

var (
	mu      sync.Mutex
	records []*LeakedRecord
	paused  bool
)

//go:noinline
func newRecord(id, size int) *LeakedRecord {
	return &LeakedRecord{ID: id, Payload: make([]byte, size)}
}

func leak(size int) {
	for id := 0; ; id++ {
		mu.Lock()
		if !paused {
			r := newRecord(id, size)
			for i := range r.Payload {
				r.Payload[i] = byte(id + i) // resident, not just reserved
			}
			if n := len(records); n > 0 {
				r.Next = records[n-1]
			}
			records = append(records, r)
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

func main() {
	size := 2048
	if len(os.Args) > 1 {
		n, err := strconv.Atoi(os.Args[1])
		if err != nil || n < 16 {
			fmt.Fprintln(os.Stderr, "usage: watchprog [BYTES] (BYTES at least 16)")
			os.Exit(2)
		}
		size = n
	}
	go leak(size)
	for {
		mu.Lock()
		n := len(records)
		mu.Unlock()
		if n >= 10 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "count":
			mu.Lock()
			n := len(records)
			mu.Unlock()
			fmt.Println("count", n)
		case "heapinuse":
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Println("heapinuse", m.HeapInuse)
		case "pause":
			mu.Lock()
			paused = true
			mu.Unlock()
			fmt.Println("paused")
		case "resume":
			mu.Lock()
			paused = false
			mu.Unlock()
			fmt.Println("resumed")
		default:
			fmt.Println("unknown", in.Text())
		}
	}
}
