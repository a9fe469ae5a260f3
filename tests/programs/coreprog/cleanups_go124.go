//go:build go1.24

package main

import (
	"fmt"
	"runtime"
)

// released keeps what the cleanups would record, so that they do something.
var released []int

func releaseHandle(id int) { released = append(released, id) }

// setCleanups gives a few held objects a cleanup (runtime.AddCleanup, Go
// 1.24+), reported as "cleanups": each object's %p.
func setCleanups() []string {
	var out []string
	for i := 0; i < 4; i++ {
		c := &finalized{ID: 100 + i}
		keep = append(keep, c)
		runtime.AddCleanup(c, releaseHandle, i)
		out = append(out, fmt.Sprintf("%p", c))
	}
	return out
}
