//go:build unix

package capture

import (
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dumpsIn lists the files in dir named as OnSignal names its dumps.
func dumpsIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if dumpName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// waitFor polls until cond holds, for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited a minute for %s", what)
}

func TestOnSignalWritesDumpsAndKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	// Files OnSignal must never remove: not named like its dumps.
	others := []string{"notes.txt", "heap-old.dump", "heap-1-yesterday.dump", "heap.dump"}
	for _, name := range others {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A dump of an earlier run (another pid, older time): the oldest, so
	// pruned first.
	earlier := "heap-1-20000101T000000.000000Z.dump"
	if err := os.WriteFile(filepath.Join(dir, earlier), []byte(dumpHeader), 0o600); err != nil {
		t.Fatal(err)
	}

	stop, err := OnSignal(syscall.SIGUSR1, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	var written []string
	for i := 1; i <= 3; i++ {
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		// Each dump appears under its final name only when complete; the
		// prune that follows it leaves at most two.
		waitFor(t, "dump "+strconv.Itoa(i), func() bool {
			for _, name := range dumpsIn(t, dir) {
				if name != earlier && !contains(written, name) {
					written = append(written, name)
					return true
				}
			}
			return false
		})
		waitFor(t, "the prune after dump "+strconv.Itoa(i), func() bool {
			return len(dumpsIn(t, dir)) == min(i+1, 2)
		})
	}

	got := dumpsIn(t, dir)
	if want := written[1:]; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("kept %v; want the newest two of %v", got, written)
	}
	for _, name := range got {
		if !strings.HasPrefix(name, "heap-"+strconv.Itoa(os.Getpid())+"-") {
			t.Errorf("%s is not named after this process", name)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), dumpHeader) || data[len(data)-1] != 0 {
			t.Errorf("%s is not a whole heap dump (%d bytes)", name, len(data))
		}
	}
	for _, name := range others {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("a file OnSignal does not own was touched: %v", err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}

	// After stop, the signal makes no dump (it is ignored for the rest of
	// the test, so that its default action does not end the test binary).
	stop()
	ignore := make(chan os.Signal, 1)
	signal.Notify(ignore, syscall.SIGUSR1)
	defer signal.Stop(ignore)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	<-ignore
	time.Sleep(100 * time.Millisecond)
	if after := dumpsIn(t, dir); strings.Join(after, " ") != strings.Join(got, " ") {
		t.Errorf("a dump was written after stop: %v", after)
	}
}

func TestOnSignalChecksItsArguments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		sig  os.Signal
		dir  string
		keep int
		want string
	}{
		{"no signal", nil, dir, 1, "no signal"},
		{"SIGKILL", os.Kill, dir, 1, "cannot be caught"},
		{"keep 0", syscall.SIGUSR1, dir, 0, "keep is 0"},
		{"no dir", syscall.SIGUSR1, "", 1, "no directory"},
		{"missing dir", syscall.SIGUSR1, filepath.Join(dir, "missing"), 1, "no such file"},
		{"a file", syscall.SIGUSR1, file, 1, "not a directory"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			name string
			sig  os.Signal
			dir  string
			keep int
			want string
		}{"read-only dir", syscall.SIGUSR1, readOnly, 1, "cannot write"})
	}
	for _, c := range cases {
		stop, err := OnSignal(c.sig, c.dir, c.keep)
		if err == nil {
			stop()
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "capture.OnSignal: ") {
			t.Errorf("%s: %q; want it to say %q", c.name, err, c.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
