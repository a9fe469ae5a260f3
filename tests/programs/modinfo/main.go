// modinfo is a test program inside a module with one dependency, replaced
// by a local directory: its executable's build info has a main module, a
// dep line and a replacement, for goheap's build info reader
// (tests/bin/buildinfo_test.cpp compares it with debug/buildinfo through
// binoracle).
//
// usage: modinfo DUMP REPORT
//
// DUMP gets a heap dump, as every test program writes one; REPORT gets
// {"build_info": "..."}: runtime/debug.ReadBuildInfo's String().
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"example.com/greeter"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: modinfo DUMP REPORT")
		os.Exit(2)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(os.Stderr, "modinfo: no build info")
		os.Exit(1)
	}
	df, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	debug.WriteHeapDump(df.Fd())
	df.Close()
	js, _ := json.Marshal(map[string]string{"build_info": bi.String(), "greeting": greeter.Greeting("goheap")})
	if err := os.WriteFile(os.Args[2], js, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
