package capture

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
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
