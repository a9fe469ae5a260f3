package capture

import (
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"
)

// OnSignal writes a heap dump into dir each time the process receives sig,
// until stop is called:
//
//	stop, err := capture.OnSignal(syscall.SIGUSR1, "/var/tmp/heapdumps", 3)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer stop()
//
// Each dump is written under a temporary name (.heap-*.tmp) and renamed to
// heap-<pid>-<UTC time>.dump once complete, so a file of that name is always
// a whole dump. After each one, only the newest keep files named like that
// (of any pid: earlier runs of the program too) are kept in dir and the
// older ones removed; no other file in dir is ever touched. Give each
// program its own dir if several share a machine.
//
// A signal that comes while a dump is being written (by this or by Handler)
// waits for it, and signals that come meanwhile make one more dump, not one
// each. What goes wrong while writing is logged with log.Printf; it never
// stops the program. The signal's default action (ending the program, for
// SIGUSR1) no longer applies until stop, which waits for a dump being
// written.
func OnSignal(sig os.Signal, dir string, keep int) (stop func(), err error) {
	keepMemoryProfiling()
	if sig == nil {
		return nil, errors.New("capture.OnSignal: no signal given")
	}
	if sig == os.Kill {
		return nil, errors.New("capture.OnSignal: " + sig.String() + " cannot be caught")
	}
	if keep < 1 {
		return nil, fmt.Errorf("capture.OnSignal: keep is %d; it must be at least 1 (the dumps to keep in %s)", keep, dir)
	}
	if dir == "" {
		return nil, errors.New("capture.OnSignal: no directory given")
	}
	if err := checkWritableDir(dir); err != nil {
		return nil, fmt.Errorf("capture.OnSignal: %w", err)
	}

	signals := make(chan os.Signal, 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	signal.Notify(signals, sig)
	go func() {
		defer close(finished)
		for {
			select {
			case <-signals:
				time.Sleep(signalSettle)
				path, err := dumpInto(dir)
				if err != nil {
					log.Printf("capture: heap dump on %v: %v", sig, err)
					continue
				}
				log.Printf("capture: wrote heap dump %s", path)
				if err := prune(dir, keep); err != nil {
					log.Printf("capture: %v", err)
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(signals)
			close(done)
			<-finished
		})
	}, nil
}

// checkWritableDir tells, before any signal comes, why dumps could not be
// written into dir.
func checkWritableDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".heap-check-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write into %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// signalSettle is how long a dump on a signal waits before it stops the
// world. os/signal's goroutine, having handed the signal over, goes back to
// wait for the next one; since Go 1.26 it gives up its P before it marks
// itself in a system call (runtime.entersyscallblock), and a WriteHeapDump
// whose stop of the world lands in that window finds it running and kills
// the process ("unexpected G.status 0x2 ... dumpgs in STW - bad status":
// runtime.dumpgs falls through to the throw even for the running goroutine
// in a system call it means to dump). The window is microseconds, but its
// thread can be descheduled inside it on a loaded machine: with two busy
// loops beside the tests on 2 cores, no wait lost the race within 20 dumps,
// 50 ms about once in 100, 200 ms never in 120. The wait lets that
// goroutine reach its wait first.
const signalSettle = 200 * time.Millisecond

// dumpInto writes one dump into dir under its final name, and returns it.
func dumpInto(dir string) (string, error) {
	dumping.Lock()
	defer dumping.Unlock()
	f, err := os.CreateTemp(dir, ".heap-*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	_, err = writeDumpFile(f, false)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "heap-"+strconv.Itoa(os.Getpid())+"-"+dumpTime(time.Now())+".dump")
	if err := os.Rename(f.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}

// dumpName matches the names dumpInto gives, and nothing else: only these
// files are ever removed. The group is the time.
var dumpName = regexp.MustCompile(`^heap-[0-9]+-([0-9]{8}T[0-9]{6}\.[0-9]{6}Z)\.dump$`)

// prune removes all but the newest keep dumps in dir, by the time in their
// names.
func prune(dir string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot list %s to remove old dumps: %w", dir, err)
	}
	type dump struct{ name, time string }
	var dumps []dump
	for _, e := range entries {
		m := dumpName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		dumps = append(dumps, dump{e.Name(), m[1]})
	}
	sort.Slice(dumps, func(i, j int) bool {
		if dumps[i].time != dumps[j].time {
			return dumps[i].time > dumps[j].time
		}
		return dumps[i].name > dumps[j].name
	})
	var failed []string
	for i := keep; i < len(dumps); i++ {
		if err := os.Remove(filepath.Join(dir, dumps[i].name)); err != nil && !os.IsNotExist(err) {
			failed = append(failed, err.Error())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("cannot remove old dumps: %v", failed)
	}
	return nil
}
