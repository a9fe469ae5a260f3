// Package capture lets a running Go service hand out heap dumps for goheap
// (https://github.com/goheap/goheap), over HTTP or on a signal, without a
// debugger or a restart.
//
// # Over HTTP
//
// Mount Handler on a mux of your own, as you would net/http/pprof's handlers
// (this package registers nothing by itself):
//
//	mux := http.NewServeMux()
//	mux.Handle("/debug/heapdump", capture.Handler())
//	go http.ListenAndServe("127.0.0.1:6060", mux)
//
// and read the heap with goheap, which downloads it:
//
//	goheap summary http://127.0.0.1:6060/debug/heapdump ./server
//	curl -o heap.dump http://127.0.0.1:6060/debug/heapdump
//
// GET writes a dump with runtime/debug.WriteHeapDump and sends it; ?gc=1 runs
// a garbage collection first, so that the dump holds only live objects. One
// dump is written at a time: a request that comes while another is being
// written or sent is answered 429 Too Many Requests, with a Retry-After.
//
// # What the endpoint exposes
//
// A heap dump is the whole of the process's memory: every string, key,
// password, token and customer record it holds. Mount the handler only on a
// listener that the outside cannot reach (127.0.0.1, an internal admin port)
// or behind authentication, never on the public one. Each dump also stops
// the world while it is written (measured on a 2-core VM: 0.25 s for a heap
// of 70 MiB, 2.3 s for 690 MiB) and needs room in the temporary directory
// (os.TempDir, $TMPDIR) for a file a little larger than the heap (850 MiB
// for those 690).
//
// # On a signal
//
// OnSignal writes a dump into a directory whenever the process gets a signal,
// for a service without an admin listener:
//
//	stop, err := capture.OnSignal(syscall.SIGUSR1, "/var/tmp/heapdumps", 3)
//	// kill -USR1 <pid> writes /var/tmp/heapdumps/heap-<pid>-<time>.dump
//
// # Allocation sites
//
// A dump names each object by the place that allocated it only when the
// memory profiler sampled that allocation, and by default it samples one
// allocation in 512 KiB. Import the allocsites sub-package for its side
// effect, which sets runtime.MemProfileRate to 1 during initialization, or
// start the program with GODEBUG=memprofilerate=1; see its documentation for
// what it costs.
package capture
