package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMemoryProfilingStaysOnInAProgramThatUsesCapture builds a program that
// takes dumps through this package and nothing else (a test binary always
// keeps memory profiling: the testing package refers to the profiles), and
// checks that its runtime samples allocations at Go's default rate, and at
// the rate GODEBUG=memprofilerate gives where the runtime honours it.
func TestMemoryProfilingStaysOnInAProgramThatUsesCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Skipf("no go command beside this test's runtime: %v", err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/prog\n\ngo 1.19\n\n" +
			"require github.com/goheap/goheap/capture v0.0.0\n\n" +
			"replace github.com/goheap/goheap/capture => " + here + "\n",
		"main.go": `package main

import (
	"net/http"
	"os"
	"runtime"
	"strconv"

	"github.com/goheap/goheap/capture"
)

func main() {
	http.Handle("/debug/heapdump", capture.Handler())
	os.Stdout.WriteString(strconv.Itoa(runtime.MemProfileRate))
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "prog")
	build := exec.Command(gobin, "build", "-o", exe, ".")
	build.Dir = dir
	// Offline, with this toolchain, whatever the caller's settings.
	build.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	rate := func(godebug string) string {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("running the program: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := rate(""); got != "524288" {
		t.Errorf("MemProfileRate %s in a program using capture; want Go's default 524288 "+
			"(0: the linker turned memory profiling off)", got)
	}
	// Go 1.19's runtime sets the rate again during its own initialization,
	// after reading GODEBUG; later releases keep GODEBUG's.
	if !strings.HasPrefix(runtime.Version(), "go1.19") {
		if got := rate("memprofilerate=1"); got != "1" {
			t.Errorf("MemProfileRate %s with GODEBUG=memprofilerate=1; want 1", got)
		}
	}
}
