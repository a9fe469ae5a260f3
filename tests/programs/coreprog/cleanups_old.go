//go:build !go1.24

package main

// setCleanups: runtime.AddCleanup came with Go 1.24; before it there are
// none to report.
func setCleanups() []string { return []string{} }
