package capture

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// The goroutineleak profile marks leaked goroutines with a status that
// runtime/debug.WriteHeapDump dies of (Go 1.26 with the experiment, 1.27).
// The marks would stay in the test process, so each test runs its heap in a
// child: this test binary again, with GOHEAP_LEAK_MARKS_CHILD naming what to
// do, which prints its findings on stdout.
const leakMarksChild = "GOHEAP_LEAK_MARKS_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(leakMarksChild) {
	case "":
		os.Exit(m.Run())
	case "write-heap-dump":
		markLeaked()
		f, _ := os.CreateTemp("", "leakmarks-*.dump")
		debug.WriteHeapDump(f.Fd()) // dies here on the releases with the bug
		os.Remove(f.Name())
		io.WriteString(os.Stdout, "survived\n")
	case "handler":
		markLeaked()
		server := httptest.NewServer(Handler())
		resp, err := http.Get(server.URL)
		if err != nil {
			io.WriteString(os.Stdout, "error "+err.Error()+"\n")
			os.Exit(1)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		io.WriteString(os.Stdout, resp.Status+"\n"+resp.Header.Get("Content-Type")+"\n"+string(body))
	case "signal-dump":
		markLeaked()
		dir := os.Args[len(os.Args)-1]
		_, err := dumpInto(dir)
		entries, _ := os.ReadDir(dir)
		io.WriteString(os.Stdout, "files "+string(rune('0'+len(entries)))+"\n")
		if err != nil {
			io.WriteString(os.Stdout, err.Error()+"\n")
		}
	}
	os.Exit(0)
}

// markLeaked leaves a goroutine blocked on a channel only it holds and runs
// the goroutineleak profile, which marks it.
func markLeaked() {
	go func() {
		ch := make(chan int)
		<-ch
	}()
	time.Sleep(50 * time.Millisecond)
	pprof.Lookup("goroutineleak").WriteTo(io.Discard, 0)
}

func runChild(t *testing.T, what string, args ...string) (stdout string, exitErr error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args...)...)
	cmd.Env = append(os.Environ(), leakMarksChild+"="+what)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String() + errOut.String(), err
}

func needLeakProfile(t *testing.T) {
	if pprof.Lookup("goroutineleak") == nil {
		t.Skip("this Go has no goroutineleak profile (Go 1.27, or 1.26 with GOEXPERIMENT=goroutineleakprofile)")
	}
}

// The runtime's bug itself: without the check, a dump after the profile
// kills the process.
func TestLeakMarksKillWriteHeapDump(t *testing.T) {
	needLeakProfile(t)
	out, err := runChild(t, "write-heap-dump")
	if err == nil || !strings.Contains(out, "dumpgs in STW - bad status") {
		t.Fatalf("WriteHeapDump after the goroutineleak profile did not die of it (err %v):\n%s", err, out)
	}
}

func TestHandlerRefusesWhileGoroutinesAreMarkedLeaked(t *testing.T) {
	needLeakProfile(t)
	out, err := runChild(t, "handler")
	if err != nil {
		t.Fatalf("the service died: %v\n%s", err, out)
	}
	lines := strings.SplitN(out, "\n", 3)
	if len(lines) < 3 || lines[0] != "503 Service Unavailable" || lines[1] != "application/json" {
		t.Fatalf("want a 503 in JSON, got:\n%s", out)
	}
	var body struct {
		Error                  string `json:"error"`
		GoroutinesMarkedLeaked int    `json:"goroutines_marked_leaked"`
		Instead                string `json:"instead"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &body); err != nil {
		t.Fatalf("the body is not JSON: %v\n%s", err, lines[2])
	}
	if body.GoroutinesMarkedLeaked < 1 || !strings.HasPrefix(body.Instead, "goheap snap ") ||
		!strings.Contains(body.Error, "goheap snap") {
		t.Errorf("the body does not say what to do: %+v", body)
	}
}

func TestSignalDumpWritesNothingWhileGoroutinesAreMarkedLeaked(t *testing.T) {
	needLeakProfile(t)
	out, err := runChild(t, "signal-dump", t.TempDir())
	if err != nil {
		t.Fatalf("the process died: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "files 0\n") || !strings.Contains(out, "marked leaked") {
		t.Errorf("want no file and the reason, got:\n%s", out)
	}
}
