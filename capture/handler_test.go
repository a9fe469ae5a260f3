package capture

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The first bytes of every heap dump Go 1.7 and later write.
const dumpHeader = "go1.7 heap dump\n"

// serve starts h on a test server and sends the temporary files of this
// process to a directory of the test's own, returned for checking that none
// is left behind.
func serve(t *testing.T, h http.Handler) (url, tmp string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	server := httptest.NewServer(h)
	t.Cleanup(server.Close)
	return server.URL, tmp
}

func do(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// expectNoFiles checks that dir empties: the handler removes its temporary
// file after sending the last byte, which the client may read first.
func expectNoFiles(t *testing.T, dir string) {
	t.Helper()
	var entries []os.DirEntry
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if entries, err = os.ReadDir(dir); err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, e := range entries {
		t.Errorf("left behind in the temporary directory: %s", e.Name())
	}
}

// withoutAutomaticGC turns the pacer's collections off for the rest of the
// test, so that a change in NumGC is the handler's doing and not a
// collection the test's own allocations happened to trigger.
func withoutAutomaticGC(t *testing.T) {
	t.Helper()
	old := debug.SetGCPercent(-1)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

func TestGetSendsAHeapDump(t *testing.T) {
	url, tmp := serve(t, Handler())
	resp, body := do(t, "GET", url)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if !strings.HasPrefix(string(body), dumpHeader) {
		t.Fatalf("the body starts with %q, not the heap dump header", body[:min(len(body), 32)])
	}
	if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q for a body of %d bytes", got, len(body))
	}
	if got := resp.Header.Get("Content-Type"); got != "application/octet-stream" {
		t.Errorf("Content-Type %q", got)
	}
	name := regexp.MustCompile(`^attachment; filename="heap-[A-Za-z0-9._-]+-` + strconv.Itoa(os.Getpid()) +
		`-[0-9]{8}T[0-9]{6}\.[0-9]{6}Z\.dump"$`)
	if got := resp.Header.Get("Content-Disposition"); !name.MatchString(got) {
		t.Errorf("Content-Disposition %q does not match %s", got, name)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q", got)
	}
	// The dump ends with its end record (tag 0) after the memstats: a whole
	// dump was sent, not the start of one.
	if body[len(body)-1] != 0 {
		t.Errorf("the dump does not end with the end-of-dump record")
	}
	expectNoFiles(t, tmp)
}

func TestGCParameterRunsACollectionFirst(t *testing.T) {
	url, tmp := serve(t, Handler())
	withoutAutomaticGC(t)
	before := numGC()
	resp, body := do(t, "GET", url+"?gc=1")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), dumpHeader) {
		t.Fatalf("status %d, body starting %q", resp.StatusCode, body[:min(len(body), 32)])
	}
	if after := numGC(); after <= before {
		t.Errorf("NumGC was %d before ?gc=1 and is %d after: no collection ran", before, after)
	}

	resp, body = do(t, "GET", url+"?gc=yes")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "gc=1") {
		t.Errorf("?gc=yes: status %d, %q; want 400 saying what to give", resp.StatusCode, body)
	}
	expectNoFiles(t, tmp)
}

func TestASecondRequestWhileOneIsBeingWrittenGets429(t *testing.T) {
	// The first request waits after writing its dump until released; later
	// ones go straight on.
	written := make(chan struct{})
	release := make(chan struct{})
	var once, released sync.Once
	url, tmp := serve(t, &handler{afterWrite: func() {
		once.Do(func() {
			close(written)
			<-release
		})
	}})
	// Released before the server is closed, however the test ends.
	releaseFirst := func() { released.Do(func() { close(release) }) }
	t.Cleanup(releaseFirst)

	type answer struct {
		status int
		body   []byte
	}
	first := make(chan answer, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			first <- answer{}
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		first <- answer{resp.StatusCode, body}
	}()
	select {
	case <-written:
	case <-time.After(60 * time.Second):
		t.Fatal("the first request did not write its dump within a minute")
	}
	// The dump is in its temporary file while the first request waits.
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("%d files in the temporary directory during the dump; want 1", len(entries))
	}

	resp, body := do(t, "GET", url)
	releaseFirst()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the second request got %d; want 429", resp.StatusCode)
	}
	if retry, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || retry < 1 {
		t.Errorf("Retry-After %q; want a number of seconds", resp.Header.Get("Retry-After"))
	}
	if text := string(body); !strings.Contains(text, "another heap dump is being written") ||
		strings.Count(text, "\n") != 1 || !strings.HasSuffix(text, "\n") {
		t.Errorf("the 429 says %q; want one line with the reason", text)
	}

	a := <-first
	if a.status != http.StatusOK || !strings.HasPrefix(string(a.body), dumpHeader) {
		t.Errorf("the first request got %d, %d bytes", a.status, len(a.body))
	}
	// Once it is done, dumps are taken again.
	if resp, _ := do(t, "GET", url); resp.StatusCode != http.StatusOK {
		t.Errorf("a request after the first finished got %d", resp.StatusCode)
	}
	expectNoFiles(t, tmp)
}

func TestHeadTakesNoDump(t *testing.T) {
	url, tmp := serve(t, Handler())
	withoutAutomaticGC(t)
	before := numGC()
	resp, body := do(t, "HEAD", url+"?gc=1")
	if resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD: status %d, %d bytes", resp.StatusCode, len(body))
	}
	if got := resp.Header.Get("Content-Type"); got != "application/octet-stream" {
		t.Errorf("HEAD: Content-Type %q", got)
	}
	if after := numGC(); after != before {
		t.Errorf("HEAD ran a collection (NumGC %d -> %d)", before, after)
	}
	expectNoFiles(t, tmp)
}

func TestOtherMethodsAre405(t *testing.T) {
	url, tmp := serve(t, Handler())
	for _, method := range []string{"POST", "PUT", "DELETE", "OPTIONS"} {
		resp, body := do(t, method, url)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d; want 405", method, resp.StatusCode)
		}
		if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
			t.Errorf("%s: Allow %q", method, got)
		}
		if !strings.Contains(string(body), "GET") {
			t.Errorf("%s: the answer %q does not say to use GET", method, body)
		}
	}
	expectNoFiles(t, tmp)
}

func TestATemporaryDirectoryThatCannotBeWrittenIs500(t *testing.T) {
	url, _ := serve(t, Handler())
	t.Setenv("TMPDIR", "/nonexistent/goheap-capture-test")
	resp, body := do(t, "GET", url)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d; want 500", resp.StatusCode)
	}
	if !strings.Contains(string(body), "temporary file") || !strings.Contains(string(body), "/nonexistent") {
		t.Errorf("the 500 says %q; want the reason", body)
	}
	if resp.Header.Get("Content-Disposition") != "" {
		t.Errorf("a failed dump still names a file")
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
