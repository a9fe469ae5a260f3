package capture

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// dumping is held while a dump is written and, over HTTP, sent: one dump at
// a time in the whole process, whoever asks (every Handler, OnSignal). Two at
// once would not be faster (each stops the world) but would need twice the
// disk.
var dumping sync.Mutex

// lastDumpNanos is how long the last dump took to write and send, for the
// Retry-After of a refused request.
var lastDumpNanos atomic.Int64

// memProfile keeps runtime.MemProfile in every program that uses this
// package. A program that never refers to it has memory profiling turned off
// by the linker (runtime.disableMemoryProfiling: MemProfileRate is then 0
// from the start), so that neither Go's default sampling nor
// GODEBUG=memprofilerate=1 would name a single object in its dumps.
var memProfile = runtime.MemProfile

// keepMemoryProfiling refers to memProfile, from the functions a program
// must call to take dumps (Handler, OnSignal), so that the linker keeps it.
func keepMemoryProfiling() {
	runtime.KeepAlive(memProfile)
}

// writeDumpFile writes a heap dump of this process into f, which must be a
// regular file, after a garbage collection when gc is set. The caller holds
// dumping.
//
// WriteHeapDump stops the world until it has written the last byte, so its
// file descriptor must never be one that this process itself has to drain:
// a socket to an HTTP client (the kernel's buffer fills, the write blocks,
// and the goroutine that would send the rest cannot run), or a pipe. A file
// never blocks that way, which is why the handler writes to a temporary file
// and sends that afterwards.
func writeDumpFile(f *os.File, gc bool) (size int64, err error) {
	if gc {
		runtime.GC()
	}
	if n := goroutinesMarkedLeaked(); n > 0 {
		return 0, &markedLeakedError{n}
	}
	// WriteHeapDump reports no error: a full disk leaves a short file. The
	// size is checked by the caller's reader (goheap says where the dump
	// ends); here we can only say that nothing was written.
	debug.WriteHeapDump(f.Fd())
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if info.Size() == 0 {
		return 0, fmt.Errorf("runtime/debug.WriteHeapDump wrote nothing to %s (is the disk full?)", f.Name())
	}
	return info.Size(), nil
}

// dumpTime is the time in dump file names: UTC, sortable, to the
// microsecond so that two dumps a moment apart get two names.
func dumpTime(t time.Time) string {
	return t.UTC().Format("20060102T150405.000000Z")
}

// goroutinesMarkedLeaked is how many goroutines the runtime's goroutineleak
// profile marked leaked when it last ran (Go 1.26 built with
// GOEXPERIMENT=goroutineleakprofile, and 1.27; 0 on other releases, which
// have no such profile). The marks (status _Gleaked, 0xa) last until the
// next collection that looks for leaks, and while any is there
// runtime/debug.WriteHeapDump kills the process: "runtime: unexpected
// G.status 0xa ... fatal error: dumpgs in STW - bad status". So every dump
// asks first.
func goroutinesMarkedLeaked() int {
	if p := pprof.Lookup("goroutineleak"); p != nil {
		return p.Count()
	}
	return 0
}

// markedLeakedError refuses a dump that would kill the process.
type markedLeakedError struct{ goroutines int }

func (e *markedLeakedError) Error() string {
	return fmt.Sprintf("%d goroutines are marked leaked by the runtime's goroutineleak profile, "+
		"and runtime/debug.WriteHeapDump would kill the process over them (a Go runtime bug); "+
		"take the heap with `goheap snap %d` instead, or dump again after the next "+
		"goroutineleak profile finds no leak", e.goroutines, os.Getpid())
}

// isMarkedLeaked says whether err is a refusal for goroutines marked leaked.
func isMarkedLeaked(err error) (*markedLeakedError, bool) {
	var e *markedLeakedError
	ok := errors.As(err, &e)
	return e, ok
}
