// Command captureprog serves its own heap through the capture package, for
// goheap's tests of reading a heap over HTTP
// (tests/cli/capture_end_to_end_test.cpp).
//
// Usage: captureprog REPORT
//
// It allocates a number of *main.Session (between 500 and 999, chosen at
// random so that no test can know it in advance) held by a global, and 2000
// *main.Garbage that it drops, with the collector turned off so that they
// stay in the heap as garbage until a dump asks for a collection (?gc=1).
// Then it listens on 127.0.0.1:0 and serves
//
//	/debug/heapdump   capture.Handler(), as a service would mount it
//	/slow/heapdump    the same, but the answer's body waits until /release
//	                  is requested (or a minute passes): a dump held in
//	                  progress, for the test of a second request's 429
//	/release          lets the held answer go on
//
// writes REPORT (JSON, below), prints "port N" on standard output, and
// serves until its standard input closes. Its temporary files go to $TMPDIR.
//
// The report:
//
//	{"go_version": "go1.24.4", "pid": 1234, "port": 40000,
//	 "sessions": 731, "session_size": 56,
//	 "session_addrs": ["0xc000010000", ...],   // %p of every session
//	 "garbage": 2000, "garbage_size": 48,
//	 "num_gc": 0}                              // runtime.NumGC before serving
package main

import (
	// First, so that its init sets runtime.MemProfileRate before the
	// allocations below: every object is named by its allocation site.
	_ "github.com/goheap/goheap/capture/allocsites"

	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
	"unsafe"

	"github.com/goheap/goheap/capture"
)

type Session struct {
	ID    uint64
	User  string
	Token [24]byte
	Next  *Session
}

type Garbage struct {
	Words [6]uint64
}

var sessions []*Session

// newSession allocates the session alone on its line, so that its
// allocation site counts sessions only (the user name is allocated by
// newUser, a site of its own).
//
//go:noinline
func newSession(id uint64) *Session {
	s := &Session{ID: id}
	s.User = newUser(id)
	for i := range s.Token {
		s.Token[i] = byte(id + uint64(i))
	}
	return s
}

//go:noinline
func newUser(id uint64) string {
	return fmt.Sprintf("user-%d", id)
}

//go:noinline
func makeGarbage(n int) {
	for i := 0; i < n; i++ {
		g := &Garbage{}
		g.Words[0] = uint64(i)
		garbageSink = g
	}
	garbageSink = nil
}

var garbageSink *Garbage

type report struct {
	GoVersion    string   `json:"go_version"`
	Pid          int      `json:"pid"`
	Port         int      `json:"port"`
	Sessions     int      `json:"sessions"`
	SessionSize  uintptr  `json:"session_size"`
	SessionAddrs []string `json:"session_addrs"`
	Garbage      int      `json:"garbage"`
	GarbageSize  uintptr  `json:"garbage_size"`
	NumGC        uint32   `json:"num_gc"`
}

// gate holds the body of a /slow/heapdump answer until /release.
type gate struct {
	mu      sync.Mutex
	release chan struct{}
}

func (g *gate) current() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release == nil {
		g.release = make(chan struct{})
	}
	return g.release
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release != nil {
		close(g.release)
		g.release = nil
	}
}

// heldWriter waits at its first Write (the dump is then written and the
// capture package's lock held) until the gate opens.
type heldWriter struct {
	http.ResponseWriter
	release <-chan struct{}
	waited  bool
}

func (w *heldWriter) Write(p []byte) (int, error) {
	if !w.waited {
		w.waited = true
		select {
		case <-w.release:
		case <-time.After(time.Minute):
		}
	}
	return w.ResponseWriter.Write(p)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: captureprog REPORT")
		os.Exit(2)
	}
	// No collection but the ones a dump asks for: the garbage stays.
	debug.SetGCPercent(-1)

	rand.Seed(time.Now().UnixNano())
	n := 500 + rand.Intn(500)
	sessions = make([]*Session, n)
	r := report{GoVersion: runtime.Version(), Pid: os.Getpid(), Sessions: n,
		SessionSize: unsafe.Sizeof(Session{}), Garbage: 2000, GarbageSize: unsafe.Sizeof(Garbage{})}
	for i := range sessions {
		sessions[i] = newSession(uint64(i))
		if i > 0 {
			sessions[i].Next = sessions[i-1]
		}
		r.SessionAddrs = append(r.SessionAddrs, fmt.Sprintf("%p", sessions[i]))
	}
	makeGarbage(r.Garbage)

	var g gate
	handler := capture.Handler()
	mux := http.NewServeMux()
	mux.Handle("/debug/heapdump", handler)
	mux.HandleFunc("/slow/heapdump", func(w http.ResponseWriter, req *http.Request) {
		handler.ServeHTTP(&heldWriter{ResponseWriter: w, release: g.current()}, req)
	})
	mux.HandleFunc("/release", func(w http.ResponseWriter, req *http.Request) {
		g.open()
		io.WriteString(w, "released\n")
	})
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r.Port = listener.Addr().(*net.TCPAddr).Port
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.NumGC = m.NumGC

	data, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = os.WriteFile(os.Args[1], append(data, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		// Until the test closes our standard input (or dies).
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	fmt.Printf("port %d\n", r.Port)
	if err := http.Serve(listener, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
