// Command zoo allocates a wide variety of Go values — structs nested and
// embedded, pointers to fields, arrays, slices of structs and of interfaces,
// maps of many key and value kinds, buffered channels, closures, interfaces
// holding values and pointers, strings, objects with finalizers, and values
// only a goroutine's stack holds — writes a heap dump with
// runtime/debug.WriteHeapDump, and a JSON report saying what each value is.
// goheap's typing (issue 4: DWARF types propagated from the roots) is checked
// against the report; the report comes from the runtime (%p, reflect), not
// from goheap.
//
// Usage: zoo DUMP_PATH REPORT_PATH [crash|live|churn|sparse|seccomp]
//
// With crash it dies of SIGABRT after writing the report, before the
// stack-only value is let go: under GOTRACEBACK=crash the kernel writes a
// core of the heap the dump holds (tests/core/core_model_test.cpp).
//
// With live it keeps running after the report, for goheap snap
// (tests/acquire/snap_test.cpp): it prints "ready" on stdout, answers each
// line "ping" on stdin with "pong", and exits when stdin closes. The report
// then also lists its goroutines as runtime.Stack prints them. churn is
// live with two goroutines that allocate and rewire linked structures all
// the time, so that a snap catches the heap mid-change. sparse is live
// with 2,048 more buffers of 64 KiB, made after the dump, each written only
// at its first byte (report: sparse_buffers), so that a snap must leave out
// the pages the process never touched. seccomp is live with one thread
// under a seccomp filter that allows every system call, as a sandboxed
// service's are: snap must not make it fork.
//
// Report (addresses "0x" + lower-case hex, as %p prints):
//
//	go_version, goarch, ptr_size, big_endian
//	values = [{addr, type, what}]: the heap object starting at addr and the
//	    type goheap must give it, spelled as reflect's Type.String() spells
//	    it, with these conventions for what has no Go type of its own:
//	    - a slice's backing array: "[cap]T" (T the element type);
//	    - a map: its header object, typed as the map ("map[string]int");
//	    - a channel: its hchan object, typed as the chan ("chan int");
//	    - a string's bytes: "string";
//	    - a closure (a func value that captures variables): its context
//	      object, "closure " + the function's name (runtime.FuncForPC);
//	    - a value stored in an interface: the boxed copy, typed as the
//	      value's dynamic type.
//	    `what` says which of the zoo's cases it is.
//	fields = [{addr, path, value}]: a field of the object at addr (a path of
//	    field names and [index] steps, from the object's type) and the value
//	    it holds, printed with %v.
package main

import (
	"bufio"
	clist "container/list"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

type Point struct {
	X, Y int64
}

type Inner struct {
	Count int
	Label string
	Tags  []string
}

type Base struct {
	ID   uint64
	Note string
}

// Outer nests Inner by value and by pointer and embeds Base.
type Outer struct {
	Base
	In      Inner
	InPtr   *Inner
	Ratio   float64
	Enabled bool
	Points  [3]Point
}

type Shape interface {
	Area() float64
}

type Rect struct {
	W, H float64
}

func (r Rect) Area() float64 { return r.W * r.H }

type Circle struct {
	R    float64
	Name string
}

func (c *Circle) Area() float64 { return 3 * c.R * c.R }

type Node struct {
	Value int
	Next  *Node
}

type Resource struct {
	Handle int64
	Path   string
}

type Key struct {
	A int32
	B string
}

type Session struct {
	User  string
	Hits  int
	Items map[string]int
}

// Globals: the roots of most of the zoo.
var (
	outer        *Outer
	innerPtr     *Inner // points into outer (a pointer to a field)
	grid         *[16]int64
	points       []Point
	pointPtrs    []*Point
	shapes       []Shape
	anys         []interface{}
	byString     map[string]int
	byInt        map[int]*Session
	byStruct     map[Key]Point
	byFloat      map[float64]string
	nested       map[string][]int
	sets         map[int64]struct{}
	ints         chan int
	pointChan    chan *Point
	closures     []func() int
	shape        Shape
	anyValue     interface{}
	message      string
	list         *Node
	resources    []*Resource
	session      *Session
	sessionsByID map[string]*Session
	// Made at package initialization, as `var lst = list.New()` is: no
	// code in main types it.
	queue = clist.New()
	// A large string only a global holds.
	bigText string
)

type value struct {
	Addr string `json:"addr"`
	Type string `json:"type"`
	What string `json:"what"`
}

type field struct {
	Addr  string `json:"addr"`
	Path  string `json:"path"`
	Value string `json:"value"`
}

type report struct {
	GoVersion string  `json:"go_version"`
	GoArch    string  `json:"goarch"`
	PtrSize   int     `json:"ptr_size"`
	BigEndian bool    `json:"big_endian"`
	Values    []value `json:"values"`
	Fields    []field `json:"fields"`
	// live and churn: every goroutine runtime.Stack(all) lists, with the
	// functions of its frames, innermost first.
	Goroutines []goroutine `json:"goroutines,omitempty"`
	// sparse: the addresses (%p) of buffers of 64 KiB each written only at
	// its first byte, so that most of their pages were never touched.
	SparseBuffers []string `json:"sparse_buffers,omitempty"`
}

// sparseBuffers holds the sparse mode's buffers.
var sparseBuffers [][]byte

func makeSparseBuffers(n int) {
	sparseBuffers = make([][]byte, n)
	for i := range sparseBuffers {
		sparseBuffers[i] = make([]byte, 64<<10)
		sparseBuffers[i][0] = 1
		rep.SparseBuffers = append(rep.SparseBuffers, fmt.Sprintf("%p", &sparseBuffers[i][0]))
	}
}

type goroutine struct {
	ID        int64    `json:"id"`
	Functions []string `json:"functions"`
}

var rep report

func addr(p unsafe.Pointer) string { return fmt.Sprintf("%p", p) }

// note records the object at p as type t.
func note(p unsafe.Pointer, t string, what string) {
	rep.Values = append(rep.Values, value{addr(p), t, what})
}

// noteValue records *p (a pointer to a heap value) as its pointee's type.
func noteValue(p interface{}, what string) {
	v := reflect.ValueOf(p)
	note(unsafe.Pointer(v.Pointer()), v.Type().Elem().String(), what)
}

func noteField(p unsafe.Pointer, path string, v interface{}) {
	rep.Fields = append(rep.Fields, field{addr(p), path, fmt.Sprintf("%v", v)})
}

// noteSlice records a slice's backing array as [cap]T.
func noteSlice(s interface{}, what string) {
	v := reflect.ValueOf(s)
	note(unsafe.Pointer(v.Pointer()), fmt.Sprintf("[%d]%s", v.Cap(), v.Type().Elem().String()), what)
}

// mapHeader is where a map value points: its header object.
func mapHeader(m interface{}) unsafe.Pointer { return unsafe.Pointer(reflect.ValueOf(m).Pointer()) }

// eface is the layout of an interface{} value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// boxed records the object an interface's data word points at.
func boxed(i interface{}, what string) {
	e := (*eface)(unsafe.Pointer(&i))
	t := reflect.TypeOf(i)
	name := t.String()
	if t.Kind() == reflect.Pointer {
		name = t.Elem().String()
	}
	note(e.data, name, what)
}

func stringData(s string) unsafe.Pointer {
	return unsafe.Pointer((*reflect.StringHeader)(unsafe.Pointer(&s)).Data)
}

func closureContext(f func() int) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&f)) }

func funcName(f func() int) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

//go:noinline
func closeResource(r *Resource) { r.Handle = -1 }

func makeCounter(start int) func() int {
	n := start
	return func() int { n++; return n }
}

func makeSum(ps []Point) func() int {
	return func() int {
		s := 0
		for _, p := range ps {
			s += int(p.X + p.Y)
		}
		return s
	}
}

// stackOnly holds values that nothing but its own frame points at, until
// release is closed.
func stackOnly(ready chan<- struct{}, release <-chan struct{}) {
	local := &Point{X: 7001, Y: 7002}
	buf := make([]Inner, 3)
	buf[1].Label = "stack label"
	noteValue(local, "stack-only struct")
	noteSlice(buf, "stack-only slice")
	noteField(unsafe.Pointer(local), "X", local.X)
	ready <- struct{}{}
	<-release
	runtime.KeepAlive(local)
	runtime.KeepAlive(buf)
}

func build() {
	outer = &Outer{
		Base:    Base{ID: 900001, Note: "embedded note"},
		In:      Inner{Count: 41, Label: "inner label", Tags: []string{"a", "b", "c"}},
		InPtr:   &Inner{Count: 42, Label: "pointed-to inner"},
		Ratio:   0.25,
		Enabled: true,
	}
	for i := range outer.Points {
		outer.Points[i] = Point{int64(i), int64(-i)}
	}
	innerPtr = &outer.In
	noteValue(outer, "struct with nested, embedded and pointer fields")
	noteValue(outer.InPtr, "struct pointed to by a field")
	noteSlice(outer.In.Tags, "slice of strings in a nested field")
	noteField(unsafe.Pointer(outer), "In.Count", outer.In.Count)
	noteField(unsafe.Pointer(outer), "Base.Note", outer.Note)
	noteField(unsafe.Pointer(outer), "Ratio", outer.Ratio)
	noteField(unsafe.Pointer(outer), "Enabled", outer.Enabled)
	noteField(unsafe.Pointer(outer), "Points[2].Y", outer.Points[2].Y)
	noteField(unsafe.Pointer(outer.InPtr), "Count", outer.InPtr.Count)

	grid = new([16]int64)
	for i := range grid {
		grid[i] = int64(i * i)
	}
	noteValue(grid, "array")
	noteField(unsafe.Pointer(grid), "[5]", grid[5])

	points = make([]Point, 5, 8)
	for i := range points {
		points[i] = Point{int64(100 + i), int64(200 + i)}
	}
	noteSlice(points, "slice of structs")
	for i := 0; i < 4; i++ {
		p := &Point{int64(300 + i), 0}
		pointPtrs = append(pointPtrs, p)
		noteValue(p, "struct in a slice of pointers")
	}
	noteSlice(pointPtrs, "slice of pointers")

	// Values boxed in interfaces are computed at run time: a constant one
	// (Rect{W: 3, H: 4}) is boxed in read-only data since Go 1.25, not on
	// the heap. And they are of 16 bytes or more: smaller pointer-free
	// values share one 16-byte block (Go's tiny allocator), which has no
	// single type.
	big := time.Now().UnixNano() | 1<<40
	r := Rect{W: float64(big % 3), H: 4}
	c := &Circle{R: 2, Name: "circle"}
	shapes = []Shape{r, c, Rect{W: 5, H: float64(big % 5)}}
	noteSlice(shapes, "slice of interfaces")
	boxed(shapes[0], "value in a non-empty interface")
	boxed(shapes[1], "pointer in a non-empty interface")
	noteField(unsafe.Pointer(c), "Name", c.Name)

	anys = []interface{}{Point{1001, big % 1002}, &Node{Value: 77}, fmt.Sprint("a string ", big%7),
		[2]int64{big, big + 1}, complex(float64(big)/3, 1)}
	noteSlice(anys, "slice of empty interfaces")
	boxed(anys[0], "struct value in an empty interface")
	boxed(anys[1], "pointer in an empty interface")
	boxed(anys[3], "array in an empty interface")
	boxed(anys[4], "complex128 in an empty interface")
	note(stringData(anys[2].(string)), "string", "bytes of a string in an empty interface")

	byString = map[string]int{}
	for i := 0; i < 20; i++ {
		byString[fmt.Sprint("key", i)] = i
	}
	note(mapHeader(byString), reflect.TypeOf(byString).String(), "map[string]int")
	byInt = map[int]*Session{}
	for i := 0; i < 5; i++ {
		s := &Session{User: fmt.Sprint("user", i), Hits: i, Items: map[string]int{"x": i}}
		byInt[i] = s
		noteValue(s, "struct as a map value")
		note(mapHeader(s.Items), "map[string]int", "map in a struct field")
	}
	note(mapHeader(byInt), reflect.TypeOf(byInt).String(), "map[int]*Session")
	byStruct = map[Key]Point{{1, "one"}: {1, 1}, {2, "two"}: {2, 2}}
	note(mapHeader(byStruct), reflect.TypeOf(byStruct).String(), "map with struct keys")
	byFloat = map[float64]string{1.5: "one and a half", 2.5: "two and a half"}
	note(mapHeader(byFloat), reflect.TypeOf(byFloat).String(), "map[float64]string")
	nested = map[string][]int{"evens": {0, 2, 4}, "odds": {1, 3, 5, 7}}
	note(mapHeader(nested), reflect.TypeOf(nested).String(), "map of slices")
	noteSlice(nested["odds"], "slice in a map value")
	sets = map[int64]struct{}{}
	for i := int64(0); i < 12; i++ {
		sets[i*1000] = struct{}{}
	}
	note(mapHeader(sets), reflect.TypeOf(sets).String(), "map as a set")

	ints = make(chan int, 8)
	for i := 0; i < 5; i++ {
		ints <- 500 + i
	}
	note(mapHeader(ints), reflect.TypeOf(ints).String(), "buffered chan of ints")
	pointChan = make(chan *Point, 4)
	cp := &Point{X: 600, Y: 601}
	pointChan <- cp
	note(mapHeader(pointChan), reflect.TypeOf(pointChan).String(), "buffered chan of pointers")
	noteValue(cp, "struct only a channel buffer holds")

	counter := makeCounter(10)
	sum := makeSum(points)
	closures = []func() int{counter, sum}
	note(closureContext(counter), "closure "+funcName(counter), "closure capturing an int")
	note(closureContext(sum), "closure "+funcName(sum), "closure capturing a slice")

	shape = &Circle{R: 9, Name: "global circle"}
	boxed(shape, "pointer in a global interface")
	anyValue = Rect{W: 11, H: float64(big % 12)}
	boxed(anyValue, "struct in a global empty interface")

	message = fmt.Sprintf("%s-%d", "a heap string", time.Now().Year()*0+2024)
	note(stringData(message), "string", "string bytes")
	bigText = strings.Repeat("goheap ", 8*1024)
	note(stringData(bigText), "string", "large string held by a global")
	note(unsafe.Pointer(queue), "container/list.List", "container/list List in a global")
	for i := 0; i < 3; i++ {
		e := queue.PushBack(i)
		// reflect says "list.Element"; goheap names types by package path.
		note(unsafe.Pointer(e), "container/list.Element", "container/list element")
	}

	for i := 3; i > 0; i-- {
		list = &Node{Value: i, Next: list}
		noteValue(list, "linked list node")
	}
	noteField(unsafe.Pointer(list), "Next.Value", list.Next.Value)

	for i := 0; i < 3; i++ {
		res := &Resource{Handle: int64(i), Path: fmt.Sprint("/tmp/res", i)}
		runtime.SetFinalizer(res, closeResource)
		resources = append(resources, res)
		noteValue(res, "object with a finalizer")
	}

	session = &Session{User: "global user", Hits: 3, Items: map[string]int{"apples": 2}}
	noteValue(session, "struct in a global pointer")
	noteField(unsafe.Pointer(session), "Hits", session.Hits)
	noteField(unsafe.Pointer(session), "User", session.User)
	sessionsByID = map[string]*Session{"s12": session}
	note(mapHeader(sessionsByID), reflect.TypeOf(sessionsByID).String(), "map of pointers to structs")
}

// goroutines parses runtime.Stack(all): "goroutine N [state]:" then, per
// frame, "pkg.fn(args)" and a "\tfile:line" line.
func goroutines() []goroutine {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []goroutine
	for _, block := range strings.Split(string(buf), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		id, err := strconv.ParseInt(strings.Fields(lines[0])[1], 10, 64)
		if err != nil {
			continue
		}
		g := goroutine{ID: id}
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "created by ") {
				continue
			}
			if i := strings.LastIndex(l, "("); i > 0 {
				l = l[:i]
			}
			g.Functions = append(g.Functions, l)
		}
		out = append(out, g)
	}
	return out
}

type churnNode struct {
	next    *churnNode
	payload []byte
	peers   map[int]*churnNode
	label   string
}

var churnHeads [64]*churnNode

// churn builds and drops linked lists, maps and strings without end,
// rewiring pointers in structures that stay reachable.
func churn(seed int) {
	for i := seed; ; i++ {
		var head *churnNode
		for j := 0; j < 200; j++ {
			n := &churnNode{next: head, payload: make([]byte, 16+j%300), label: strconv.Itoa(i*1000 + j)}
			if j%10 == 0 {
				n.peers = map[int]*churnNode{j: head, j + 1: n}
			}
			head = n
		}
		churnHeads[i%len(churnHeads)] = head
		if other := churnHeads[(i*7)%len(churnHeads)]; other != nil && other.next != nil {
			other.next.next = head
		}
		// A breath now and then, so that the rest of the program (and the
		// test machine) keeps up: still thousands of lists a second.
		if i%8 == 0 {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// filterSyscalls puts the calling thread under a seccomp filter that
// allows everything ("Seccomp: 2" in its /proc status).
func filterSyscalls() error {
	type sockFilter struct {
		code   uint16
		jt, jf uint8
		k      uint32
	}
	type sockFprog struct {
		len    uint16
		filter *sockFilter
	}
	const bpfRetK, retAllow = 0x06, 0x7fff0000
	const prSetNoNewPrivs, prSetSeccomp, modeFilter = 38, 22, 2
	allow := []sockFilter{{code: bpfRetK, k: retAllow}}
	prog := sockFprog{len: 1, filter: &allow[0]}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, modeFilter, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return e
	}
	runtime.KeepAlive(allow)
	return nil
}

// serveStdin answers "ping" with "pong" until stdin closes, and "state"
// with what a snap must leave as it was: "state sigchld=N wait4=W ticks=T",
// N the SIGCHLDs received, W what wait4(-1, WNOHANG|__WALL) says ("ECHILD"
// when the process has no child, dead or alive), T the ticks of a goroutine
// that counts every millisecond (it must run on after a snap).
func serveStdin() {
	var sigchlds, ticks atomic.Int64
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGCHLD)
	go func() {
		for range signals {
			sigchlds.Add(1)
		}
	}()
	go func() {
		for {
			time.Sleep(time.Millisecond)
			ticks.Add(1)
		}
	}()
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "ping":
			fmt.Println("pong")
		case "state":
			var status syscall.WaitStatus
			wait := "ECHILD"
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG|syscall.WALL, nil)
			if err != syscall.ECHILD {
				wait = fmt.Sprintf("pid %d, %v", pid, err)
			}
			fmt.Printf("state sigchld=%d wait4=%s ticks=%d\n", sigchlds.Load(), wait, ticks.Load())
		}
	}
}

func main() {
	mode := ""
	if len(os.Args) == 4 {
		mode = os.Args[3]
	}
	if len(os.Args) < 3 || len(os.Args) > 4 || !(mode == "" || mode == "crash" || mode == "live" || mode == "churn" || mode == "sparse" || mode == "seccomp") {
		fmt.Fprintln(os.Stderr, "usage: zoo DUMP_PATH REPORT_PATH [crash|live|churn|sparse|seccomp]")
		os.Exit(2)
	}
	var probe uint16 = 1
	rep.GoVersion = runtime.Version()
	rep.GoArch = runtime.GOARCH
	rep.PtrSize = int(unsafe.Sizeof(uintptr(0)))
	rep.BigEndian = *(*byte)(unsafe.Pointer(&probe)) == 0

	build()
	ready := make(chan struct{})
	release := make(chan struct{})
	go stackOnly(ready, release)
	<-ready
	runtime.GC()

	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	f.Close()

	if mode == "churn" {
		go churn(1)
		go churn(1000000)
	}
	if mode == "sparse" {
		makeSparseBuffers(2048)
	}
	live := mode == "live" || mode == "churn" || mode == "sparse" || mode == "seccomp"
	if live {
		rep.Goroutines = goroutines()
	}
	out, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if mode == "seccomp" {
		runtime.LockOSThread() // the filtered thread stays, with this goroutine
		if err := filterSyscalls(); err != nil {
			fmt.Fprintln(os.Stderr, "seccomp:", err)
			os.Exit(1)
		}
	}
	if live {
		serveStdin()
		close(release)
		return
	}
	if mode == "crash" {
		// The core's heap is the dump's, the stack-only value still held.
		debug.SetTraceback("crash")
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		time.Sleep(10 * time.Second)
		os.Exit(3) // the signal did not kill us
	}
	close(release)
}
