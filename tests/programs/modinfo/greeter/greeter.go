// Package greeter is a dependency of the modinfo test program, replaced by
// this local directory, so the build info lists a dep and its replacement.
package greeter

// Greeting is called so the package is linked in.
func Greeting(name string) string { return "hello, " + name }
