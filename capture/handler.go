package capture

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Handler returns the handler of heap dumps over HTTP. Mount it yourself,
// on a listener only trusted clients reach (see the package documentation):
//
//	mux.Handle("/debug/heapdump", capture.Handler())
//
// GET answers 200 with the dump (application/octet-stream, with its
// Content-Length and a file name heap-<host>-<pid>-<time>.dump), written
// after a garbage collection when the query has gc=1. HEAD answers the same
// headers, without writing a dump. While another dump is being written or
// sent, the answer is 429 with a Retry-After and a one-line reason; another
// method is 405; a dump that cannot be written is 500 with the reason.
// While the runtime's goroutineleak profile has goroutines marked leaked
// (Go 1.26+), a dump would kill the process: the answer is 503, with the
// reason and what to do instead in JSON.
func Handler() http.Handler {
	keepMemoryProfiling()
	return &handler{}
}

type handler struct {
	// afterWrite, when set, is called once the dump is in its temporary
	// file, before it is sent, with the dump lock held: the tests make a
	// request wait there to see the next one refused.
	afterWrite func()
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		httpError(w, http.StatusMethodNotAllowed, "use GET to take a heap dump")
		return
	}
	gc, err := parseGC(r.URL.Query().Get("gc"))
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !dumping.TryLock() {
		retry := int64(time.Duration(lastDumpNanos.Load())/time.Second) + 1
		w.Header().Set("Retry-After", strconv.FormatInt(retry, 10))
		httpError(w, http.StatusTooManyRequests,
			"another heap dump is being written; try again in "+strconv.FormatInt(retry, 10)+" s")
		return
	}
	defer dumping.Unlock()
	start := time.Now()
	defer func() { lastDumpNanos.Store(int64(time.Since(start))) }()

	setDumpHeaders(w.Header(), start)
	if r.Method == http.MethodHead {
		// A probe (is the endpoint there?) must not stop the world; the
		// size is not known without writing the dump.
		w.WriteHeader(http.StatusOK)
		return
	}

	f, err := os.CreateTemp("", "heapdump-*.dump")
	if err != nil {
		dumpFailed(w, fmt.Sprintf("cannot create a temporary file for the heap dump: %v", err))
		return
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	size, err := writeDumpFile(f, gc)
	if e, ok := isMarkedLeaked(err); ok {
		refuseMarkedLeaked(w, e)
		return
	}
	if err != nil {
		dumpFailed(w, "cannot write the heap dump: "+err.Error())
		return
	}
	if h.afterWrite != nil {
		h.afterWrite()
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		dumpFailed(w, "cannot read the heap dump back: "+err.Error())
		return
	}
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	// A client that goes away mid-way ends the copy with an error; there is
	// nobody left to tell.
	io.Copy(w, io.LimitReader(f, size))
}

// parseGC reads the gc query parameter: absent, 0 or 1, as net/http/pprof's
// heap profile reads it.
func parseGC(value string) (bool, error) {
	switch value {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("gc=%q: give gc=1 to collect garbage before the dump, or leave it out", value)
}

// setDumpHeaders sets the headers of a dump taken at t.
func setDumpHeaders(h http.Header, t time.Time) {
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="`+dumpFileName(t)+`"`)
	// The dump is the process's memory: no cache along the way may keep it.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}

// dumpFileName is heap-<host>-<pid>-<UTC time>.dump, with only characters
// that need no quoting in a header or a shell.
func dumpFileName(t time.Time) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, host)
	return "heap-" + host + "-" + strconv.Itoa(os.Getpid()) + "-" + dumpTime(t) + ".dump"
}

// dumpFailed answers 500 with the reason, undoing the dump's headers.
func dumpFailed(w http.ResponseWriter, reason string) {
	for _, name := range []string{"Content-Disposition", "Content-Length"} {
		w.Header().Del(name)
	}
	httpError(w, http.StatusInternalServerError, reason)
}

// refuseMarkedLeaked answers 503, in JSON, when goroutines are marked
// leaked: the service lives on, and the answer says what to do instead.
func refuseMarkedLeaked(w http.ResponseWriter, e *markedLeakedError) {
	for _, name := range []string{"Content-Disposition", "Content-Length"} {
		w.Header().Del(name)
	}
	body, _ := json.Marshal(struct {
		Error                  string `json:"error"`
		GoroutinesMarkedLeaked int    `json:"goroutines_marked_leaked"`
		Instead                string `json:"instead"`
	}{e.Error(), e.goroutines, fmt.Sprintf("goheap snap %d", os.Getpid())})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(append(body, '\n'))
}

// httpError answers status with a one-line plain-text reason, which goheap
// shows as it is.
func httpError(w http.ResponseWriter, status int, reason string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, reason+"\n")
}
