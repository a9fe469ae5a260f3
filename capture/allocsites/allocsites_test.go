package allocsites

import (
	"runtime"
	"testing"
)

func TestImportSetsTheRateToOne(t *testing.T) {
	if runtime.MemProfileRate != 1 {
		t.Fatalf("runtime.MemProfileRate is %d after init; want 1", runtime.MemProfileRate)
	}
}

// TestEveryAllocationIsSampled checks the effect the package is for: with the
// rate at 1, each allocation shows in the memory profile.
func TestEveryAllocationIsSampled(t *testing.T) {
	const n = 1000
	before := profiledAllocs()
	for i := 0; i < n; i++ {
		sink = make([]byte, 64)
	}
	// The profile counts allocations as of the last completed GC cycle.
	runtime.GC()
	runtime.GC()
	if got := profiledAllocs() - before; got < n {
		t.Fatalf("the memory profile counts %d new allocations; want at least %d", got, n)
	}
}

var sink []byte

func profiledAllocs() int64 {
	var records []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		records = make([]runtime.MemProfileRecord, n+50)
		var ok bool
		n, ok = runtime.MemProfile(records, true)
		if ok {
			records = records[:n]
			break
		}
	}
	var total int64
	for _, r := range records {
		total += r.AllocObjects
	}
	return total
}

// BenchmarkAllocate measures what the rate costs: run it with
// go test -bench . -benchmem; "rate=1" is this package's setting and
// "rate=default" Go's (one sample per 512 KiB).
func BenchmarkAllocate(b *testing.B) {
	for _, c := range []struct {
		name string
		rate int
	}{{"rate=1", 1}, {"rate=default", 512 * 1024}} {
		b.Run(c.name, func(b *testing.B) {
			saved := runtime.MemProfileRate
			runtime.MemProfileRate = c.rate
			defer func() { runtime.MemProfileRate = saved }()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink = make([]byte, 64)
			}
		})
	}
}
