// Command gen builds a large live heap of varied shapes and writes a heap dump
// of it, for goheap's benchmark.
//
// Usage: gen OUT [N]
//
// With GOHEAP_BENCH_CRASH=1 in its environment it then dies of SIGABRT
// with the traceback level "crash", so that the kernel writes a core of the
// same heap (make-bench-dump.sh --core).
//
// With GOHEAP_BENCH_LIVE=1 it writes no dump (OUT is ignored): it prints
// "ready" and its heap's size once the heap is built, then keeps running
// until its stdin closes, for goheap snap's benchmark (bench/snap.sh).
//
// It allocates about N (default 10,000,000) live heap objects, each counted
// as it is made (map internals come on top), in these shapes:
//
//	30% binary tree nodes (32 bytes)        in 64 trees
//	20% singly linked list nodes (24 bytes) in lists of 1,000
//	15% maps of string -> *Record, 1,000 entries per map (key string + 64-byte Record)
//	10% slices of pointers ([]*Leaf, 64 per slice) and their 24-byte leaves
//	15% strings of 16 to 120 bytes          held in []string
//	10% byte slices of 16 to 255 bytes (1% up to 4 KiB, 1 in 100,000 of 64 KiB to 1 MiB)
//
// plus goroutines blocked in a channel receive, a sleep and a select, each
// holding a structure of N/1000 objects on its stack. It then calls runtime.GC() and writes the
// dump with runtime/debug.WriteHeapDump, and prints the number of objects it
// made. Sizes are never below 16 bytes so that no object is tiny-allocated
// (several tiny objects would share one 16-byte slot).
//
// With GOHEAP_BENCH_SHAPES=typed (make-bench-dump.sh --typed) it builds a
// heap for goheap's DWARF typing pass instead: about N objects of over 60
// hand-written named struct types and 10 instantiations of three generic
// ones, all reached through typed pointers from one global (and three
// goroutines' stacks, 0.3% of N more, as above). Each phase makes units until
// its share of N is reached (the percentages are of the objects made; map
// internals come on top as above):
//
//	25% commerce: customers, users, orders, products, suppliers, warehouses,
//	    shipments, invoices and payments, with embedded Base and *Audit,
//	    nested Address/Money/GeoPoint, arrays of structs ([4]OrderLine,
//	    [3]Parcel, [4]Permission), slices of structs ([]OrderLine,
//	    []TrackEvent, []InvoiceLine, []Contact, []Bin) and a PaymentMethod
//	    interface holding a Card by value or a *BankTransfer
//	12% telemetry: traces of spans whose []Attr hold an any (a string,
//	    Money, Vec3, Label, []byte or Circle boxed, or a *Span or *Product),
//	    metrics with [3]Label, []Sample and a *Histogram, and []LogEntry in
//	    slices of 128 with their []Field
//	10% syntax trees: files, nested scopes (map[string]*Object of up to 8
//	    entries, counted with their one group) and trees of the Expr
//	    interface: *Ident, *BasicLit, *BinaryExpr, *CallExpr and ParenExpr
//	    by value
//	10% interfaces: []Shape of Circle and Polygon by value and *Rect, meshes
//	    ([]Vec3, [][3]int32, *Material), and a []any of small
//	    map[string]int64, closures, shapes and the telemetry values above
//	15% maps (256 entries each, 32 when N < 1,000,000): map[string]*Product,
//	    map[int64]StockLevel (struct values with pointers),
//	    map[CacheKey]struct{} (struct keys with a string),
//	    map[Point2]struct{}, map[string]Money, and LRU caches:
//	    map[CacheKey]*CacheEntry over a doubly linked list of entries
//	10% closures: jobs whose func fields capture by value and (a Counter)
//	    by reference, handlers in []Handler with a []func(int) int of a
//	    method value and closures, and a []func() string
//	 5% channels: buffered chan Event, chan *Job, chan Vec3, chan string
//	    and chan any, their buffers 5/8 to wholly full
//	 8% generics: lists of Pair[K, V] for five (K, V), Tree[T] for three T
//	    and Stack[T] for two
//	 5% strings of 16 to 120 bytes in []string and byte slices as above,
//	    in [][]byte
//
// Across the phases about 40% of the objects are strings, 36% structs
// (pointed at, boxed in interfaces or captured by reference), 10% arrays
// (slices' backing arrays of structs, pointers and interfaces), 5% byte
// slices, 5% closures, 2% maps and their groups and 0.6% channels. The
// goroutines hold customers, jobs and an LRU cache. After the object count
// it prints a "typed mix:" line with each phase's share of the objects.
//
// With GOHEAP_BENCH_SHAPES=records (make-bench-dump.sh --records) it builds
// the record-shaped heap issue 29 measured, with N/3 records (about N
// objects): each Rec holds a 16-byte name string, a []int32 of 4 to 16
// values, a map and a []byte, and points to the next Rec of its list of
// 1,000. One record in 7 is indexed by name in a map[string]*Rec, one in 97
// has a small map[string]int of 4 entries, and one in 11 a []byte of 256 to
// 1,280 bytes; the other records' map and []byte are nil. Built with Go 1.19
// by default, as that dump was.
//
// With GOHEAP_BENCH_SHAPES=sparse (bench/snap.sh --sparse) it holds N
// buffers of 64 KiB, each touched only at its first byte, so that the heap
// is mostly memory the process never touched, and 100,000 goroutines
// parked on a channel: the heap goheap snap must not copy whole.
//
// The default memory profile rate is kept: MemProfileRate = 1 would make
// 10M allocations far slower and the dump much bigger.
package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
)

type TreeNode struct {
	Left, Right *TreeNode
	Key         int64
	Value       int64
}

type ListNode struct {
	Next    *ListNode
	ID      int64
	Payload [2]int32
}

type Record struct {
	Name    string
	Owner   *Record
	Created int64
	Flags   uint32
	Tags    []string
}

type Leaf struct {
	Parent *Leaf
	A, B   int64
}

type World struct {
	Trees   []*TreeNode
	Lists   []*ListNode
	Maps    []map[string]*Record
	Slices  [][]*Leaf
	Strings [][]string
	Bytes   [][]byte
}

var (
	world *World
	made  int64 // objects allocated by this program and still referenced
)

// buildTree builds a balanced tree of n nodes, iteratively by halving ranges.
func buildTree(n int, rng *rand.Rand) *TreeNode {
	if n <= 0 {
		return nil
	}
	var build func(lo, hi int) *TreeNode
	build = func(lo, hi int) *TreeNode {
		if lo >= hi {
			return nil
		}
		mid := (lo + hi) / 2
		t := &TreeNode{Key: int64(mid), Value: rng.Int63()}
		made++
		t.Left = build(lo, mid)
		t.Right = build(mid+1, hi)
		return t
	}
	return build(0, n)
}

func buildList(n int) *ListNode {
	var head *ListNode
	for i := n - 1; i >= 0; i-- {
		head = &ListNode{Next: head, ID: int64(i)}
		made++
	}
	return head
}

func randString(rng *rand.Rand, min, max int) string {
	n := min + rng.Intn(max-min+1)
	b := make([]byte, n) // does not escape: converted below
	for i := range b {
		b[i] = 'a' + byte(rng.Intn(26))
	}
	made++
	return string(b)
}

func buildMap(n int, rng *rand.Rand, base int) map[string]*Record {
	m := make(map[string]*Record, n)
	made++ // the map header; buckets/groups come on top
	var prev *Record
	for i := 0; i < n; i++ {
		key := "key-" + strconv.Itoa(base+i) + "-" + strconv.Itoa(rng.Intn(1<<30))
		for len(key) < 16 {
			key += "x"
		}
		made++
		r := &Record{Name: key, Owner: prev, Created: int64(i), Flags: uint32(i)}
		made++
		m[key] = r
		if i%10 == 0 {
			prev = r
		}
	}
	return m
}

func buildLeaves(n int) []*Leaf {
	s := make([]*Leaf, n)
	made++
	var parent *Leaf
	for i := range s {
		s[i] = &Leaf{Parent: parent, A: int64(i)}
		made++
		if i%8 == 0 {
			parent = s[i]
		}
	}
	return s
}

func buildBytes(rng *rand.Rand) []byte {
	n := 16 + rng.Intn(240)
	switch {
	case rng.Intn(100000) == 0:
		n = 64<<10 + rng.Intn(1<<20-64<<10)
	case rng.Intn(100) == 0:
		n = 256 + rng.Intn(4096-256)
	}
	b := make([]byte, n)
	b[0] = byte(n)
	made++
	return b
}

// Goroutines that hold parts of the heap on their stacks; not inlined, so
// their frames carry their own names rather than main.main.gowrapN.

//go:noinline
func waiter(root *TreeNode, ch <-chan int) {
	<-ch
	runtime.KeepAlive(root)
}

//go:noinline
func sleeper(list *ListNode) {
	time.Sleep(24 * time.Hour)
	runtime.KeepAlive(list)
}

//go:noinline
func selecter(m map[string]*Record, a, b <-chan int) {
	select {
	case <-a:
	case <-b:
	}
	runtime.KeepAlive(m)
}

// buildDefault builds the default mode's heap (see the comment at the top).
// ---- The sparse mode (GOHEAP_BENCH_SHAPES=sparse) ----

var sparse [][]byte

func buildSparse(buffers int64) {
	sparse = make([][]byte, buffers)
	made++
	for i := range sparse {
		// Fresh from the OS, a large object's pages are untouched until
		// written: only the first one is.
		sparse[i] = make([]byte, 64<<10)
		sparse[i][0] = 1
		made++
	}
	park := make(chan struct{})
	for i := 0; i < 100000; i++ {
		go func() { <-park }()
	}
}

// ---- The records mode (GOHEAP_BENCH_SHAPES=records) ----

type Rec struct {
	Name  string
	Next  *Rec
	Vals  []int32
	Attrs map[string]int
	Blob  []byte
}

type Records struct {
	Lists []*Rec          // heads of lists of 1,000
	Index map[string]*Rec // one record in 7, by name
}

var records *Records

func buildRecords(count int64, rng *rand.Rand) {
	records = &Records{Index: make(map[string]*Rec)}
	made += 2 // the Records and the index's header; its buckets come on top
	var prev *Rec
	for i := int64(0); i < count; i++ {
		r := &Rec{Name: fmt.Sprintf("record-%09d", i), Vals: make([]int32, 4+rng.Intn(13))}
		made += 3
		for j := range r.Vals {
			r.Vals[j] = int32(rng.Intn(1 << 20))
		}
		if i%97 == 0 {
			r.Attrs = map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}
			made++ // the header; its bucket comes on top
		}
		if i%11 == 0 {
			r.Blob = make([]byte, 256+rng.Intn(1025))
			made++
		}
		if i%7 == 0 {
			records.Index[r.Name] = r
		}
		if i%1000 == 0 {
			records.Lists = append(records.Lists, r)
		} else {
			prev.Next = r
		}
		prev = r
	}
}

func buildDefault(n int64, rng *rand.Rand) {
	world = &World{}
	made++

	// 30% tree nodes in 64 trees.
	treeNodes := n * 30 / 100
	for i := int64(0); i < 64; i++ {
		world.Trees = append(world.Trees, buildTree(int(treeNodes/64), rng))
	}
	// 20% list nodes in lists of 1,000.
	for left := n * 20 / 100; left > 0; left -= 1000 {
		world.Lists = append(world.Lists, buildList(int(min64(left, 1000))))
	}
	// 15% map objects: 2 per entry, maps of 1,000 entries.
	for left, base := n*15/100/2, 0; left > 0; left, base = left-1000, base+1000 {
		world.Maps = append(world.Maps, buildMap(int(min64(left, 1000)), rng, base))
	}
	// 10% pointer slices and their leaves: 65 objects per slice.
	for left := n * 10 / 100; left > 0; left -= 65 {
		world.Slices = append(world.Slices, buildLeaves(64))
	}
	// 15% strings, in []string of 1,000 (shared tags point into them too).
	for left := n * 15 / 100; left > 0; left -= 1000 {
		ss := make([]string, min64(left, 1000))
		made++
		for i := range ss {
			ss[i] = randString(rng, 16, 120)
		}
		world.Strings = append(world.Strings, ss)
	}
	for i, m := range world.Maps {
		tags := world.Strings[i%len(world.Strings)][:8]
		for _, r := range m {
			r.Tags = tags // shared backing array: many referrers, one owner
			break
		}
	}
	// 10% byte slices.
	for left := n * 10 / 100; left > 0; left-- {
		world.Bytes = append(world.Bytes, buildBytes(rng))
	}

	// Goroutine-held structures: 0.3% of N more.
	never := make(chan int)
	go waiter(buildTree(int(n/1000), rng), never)
	go sleeper(buildList(int(n / 1000)))
	go selecter(buildMap(int(n/2000), rng, 1<<30), never, never)
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: gen OUT [N]")
		os.Exit(2)
	}
	out := os.Args[1]
	n := int64(10_000_000)
	if len(os.Args) == 3 {
		v, err := strconv.ParseInt(os.Args[2], 10, 64)
		if err != nil || v < 1000 {
			fmt.Fprintln(os.Stderr, "gen: N must be a number >= 1000")
			os.Exit(2)
		}
		n = v
	}
	// 100 million objects are a live heap of about 6 GB: with the default
	// GOGC the heap may grow to twice that before a collection, and the
	// machine has 24 GiB. A soft limit keeps it well below, and a lower
	// GOGC keeps the growth steps small (make-bench-dump.sh clears GOGC and
	// GOMEMLIMIT from the environment, so these are the settings).
	if n >= 20_000_000 {
		debug.SetGCPercent(50)
		debug.SetMemoryLimit(14 << 30)
	}
	shapes := os.Getenv("GOHEAP_BENCH_SHAPES")
	if shapes != "" && shapes != "default" && shapes != "typed" && shapes != "records" && shapes != "sparse" {
		fmt.Fprintf(os.Stderr, "gen: GOHEAP_BENCH_SHAPES must be default, typed, records or sparse, not %q\n", shapes)
		os.Exit(2)
	}
	rng := rand.New(rand.NewSource(42))
	start := time.Now()
	var mix []phase
	if shapes == "typed" {
		mix = buildTyped(n, rng)
	} else if shapes == "records" {
		buildRecords(n/3, rng)
	} else if shapes == "sparse" {
		buildSparse(n)
	} else {
		buildDefault(n, rng)
	}

	built := time.Since(start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)

	if os.Getenv("GOHEAP_BENCH_LIVE") == "1" {
		fmt.Printf("ready: %d objects, HeapAlloc %d bytes, HeapSys %d bytes; built in %v\n",
			ms.HeapObjects, ms.HeapAlloc, ms.HeapSys, built.Round(time.Millisecond))
		printMix(mix)
		io.Copy(io.Discard, os.Stdin)
		runtime.KeepAlive(world)
		runtime.KeepAlive(tw)
		runtime.KeepAlive(records)
		runtime.KeepAlive(sparse)
		return
	}

	f, err := os.Create(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	dumpStart := time.Now()
	debug.WriteHeapDump(f.Fd())
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("objects made: %d (runtime heap objects after GC: %d, heap bytes: %d); built in %v, dumped in %v to %s\n",
		made, ms.HeapObjects, ms.HeapAlloc, built.Round(time.Millisecond), time.Since(dumpStart).Round(time.Millisecond), out)
	printMix(mix)
	if os.Getenv("GOHEAP_BENCH_CRASH") == "1" {
		// The same heap as a core: under GOTRACEBACK=crash and a raised core
		// limit the kernel writes one when the signal kills us.
		debug.SetTraceback("crash")
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		time.Sleep(time.Minute)
		os.Exit(3)
	}
	runtime.KeepAlive(world)
	runtime.KeepAlive(tw)
	runtime.KeepAlive(records)
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// ---- The typed mode (GOHEAP_BENCH_SHAPES=typed) ----
//
// Many named types whose objects point at each other through typed fields,
// so that the DWARF typing pass has to follow struct fields at offsets,
// embedded structs, arrays and slices of structs, interfaces to their
// dynamic types, map groups, channel buffers and closure contexts. Every
// allocation below is counted in made where it happens; strings and byte
// slices are never shorter than 16 bytes, and nothing of under 16 bytes
// without pointers is boxed in an interface or captured by reference (each
// would be tiny-allocated), so no two counted objects share a slot.

// Commerce: embedded Base (and *Audit), nested Address/Money/GeoPoint,
// arrays of structs ([4]OrderLine, [3]Parcel, [4]Permission), slices of
// structs and a method-set interface (PaymentMethod).

type Money struct {
	Amount   int64
	Currency string
}

type GeoPoint struct{ Lat, Lon float64 }

type Address struct {
	Street, City, Zip string
	Geo               GeoPoint
}

type Base struct {
	ID      int64
	Created int64
	Tags    []string
}

type Audit struct {
	By   *User
	At   int64
	Note string
}

type Permission struct {
	Resource string
	Mask     uint32
}

type Role struct {
	Name   string
	Perms  [4]Permission
	Parent *Role
}

type User struct {
	Base
	Name, Email string
	Home        Address
	Roles       []*Role
}

type Customer struct {
	Base
	*Audit
	User              *User
	Billing, Shipping Address
	Orders            []*Order
	Credit            Money
}

type Dimensions struct{ W, H, D, Weight float32 }

type Contact struct {
	Kind     uint8
	Verified bool
	Value    string
}

type Supplier struct {
	Base
	Name     string
	Addr     Address
	Contacts []Contact
}

type Product struct {
	Base
	SKU, Title string
	Price      Money
	Dims       Dimensions
	Supplier   *Supplier
	Related    [2]*Product
}

type OrderLine struct {
	Product *Product
	Qty     int32
	Price   Money
}

type Order struct {
	Base
	Customer *Customer
	Lines    [4]OrderLine
	Extra    []OrderLine
	Total    Money
	Status   int32
	Notes    []byte
	Shipment *Shipment
	Invoice  *Invoice
}

type Parcel struct {
	Weight float64
	Label  string
	Dims   Dimensions
}

type TrackEvent struct {
	At    int64
	Where GeoPoint
	Msg   string
}

type StockItem struct {
	Product  *Product
	Count    int64
	Reserved int64
	Bin      *Bin
}

type Bin struct {
	Code  [8]byte
	Items []*StockItem
}

type Warehouse struct {
	Base
	Name string
	Loc  GeoPoint
	Bins []Bin
}

type Shipment struct {
	Base
	Order   *Order
	From    *Warehouse
	Parcels [3]Parcel
	Track   []TrackEvent
}

type InvoiceLine struct {
	Desc        string
	Amount, Tax Money
}

type PaymentMethod interface {
	Kind() string
	Charge(Money) bool
}

// Card is a PaymentMethod by value: stored in one, it is boxed.
type Card struct {
	Number string
	Exp    [2]uint16
	Holder string
}

func (c Card) Kind() string        { return "card" }
func (c Card) Charge(m Money) bool { return m.Amount > 0 && c.Number != "" }

type Bank struct {
	Name string
	Addr Address
}

// *BankTransfer is a PaymentMethod: stored in one, the pointer is the data word.
type BankTransfer struct {
	IBAN, BIC string
	Bank      *Bank
}

func (b *BankTransfer) Kind() string        { return "transfer" }
func (b *BankTransfer) Charge(m Money) bool { return b.Bank != nil && m.Amount > 0 }

type Payment struct {
	Base
	Method PaymentMethod
	Amount Money
	Ref    string
}

type Invoice struct {
	Base
	Order *Order
	Lines []InvoiceLine
	Due   Money
	Paid  *Payment
}

// Telemetry: any-typed attribute values, [16]byte and [3]Label arrays,
// slices of structs ([]Sample, []Attr, []Field, []LogEntry).

type Label struct{ Key, Value string }

type Attr struct {
	Key string
	Val any
}

type SpanEvent struct {
	Name string
	At   int64
}

type Span struct {
	TraceID [16]byte
	SpanID  uint64
	Parent  *Span
	Name    string
	Attrs   []Attr
	Events  [2]SpanEvent
}

type Trace struct {
	Root  *Span
	Spans []*Span
}

type Sample struct {
	T        int64
	V        float64
	Exemplar *Span
}

type Histogram struct {
	Bounds []float64
	Counts []uint64
	Sum    float64
	Owner  *Metric
}

type Metric struct {
	Name    string
	Labels  [3]Label
	Samples []Sample
	Hist    *Histogram
}

type Field struct {
	Key string
	Str string
	Int int64
}

type LogEntry struct {
	Level  int8
	At     int64
	Msg    string
	Fields []Field
	Span   *Span
}

// A syntax tree: a method-set interface (Expr) holding pointers and, for
// ParenExpr, boxed values; scopes with maps of objects.

type Expr interface {
	Pos() Pos
	End() int32
}

type File struct {
	Name  string
	Src   []byte
	Lines []int32
}

type Pos struct {
	File      *File
	Line, Col int32
}

type Object struct {
	Name string
	Kind int32
	Decl Expr
}

type Scope struct {
	Outer   *Scope
	Objects map[string]*Object
}

type Ident struct {
	NamePos Pos
	Name    string
	Obj     *Object
}

type BasicLit struct {
	ValuePos Pos
	Kind     int32
	Value    string
}

type BinaryExpr struct {
	OpPos Pos
	Op    int32
	X, Y  Expr
}

type CallExpr struct {
	Lparen Pos
	Fun    Expr
	Args   []Expr
}

type ParenExpr struct {
	Lparen Pos
	X      Expr
}

func (x *Ident) Pos() Pos        { return x.NamePos }
func (x *Ident) End() int32      { return x.NamePos.Col + int32(len(x.Name)) }
func (x *BasicLit) Pos() Pos     { return x.ValuePos }
func (x *BasicLit) End() int32   { return x.ValuePos.Col + int32(len(x.Value)) }
func (x *BinaryExpr) Pos() Pos   { return x.X.Pos() }
func (x *BinaryExpr) End() int32 { return x.Y.End() }
func (x *CallExpr) Pos() Pos     { return x.Fun.Pos() }
func (x *CallExpr) End() int32   { return x.Lparen.Col + 1 }
func (x ParenExpr) Pos() Pos     { return x.Lparen }
func (x ParenExpr) End() int32   { return x.X.End() + 1 }

// Geometry: Shape holds Circle and Polygon by value (boxed) and *Rect.

type Vec3 struct{ X, Y, Z float64 }

type Shape interface {
	Area() float64
	Center() Vec3
}

type Circle struct {
	C Vec3
	R float64
}

type Rect struct{ Min, Max Vec3 }

type Polygon struct {
	Name string
	Pts  []Vec3
}

func (c Circle) Area() float64  { return 3.14159 * c.R * c.R }
func (c Circle) Center() Vec3   { return c.C }
func (r *Rect) Area() float64   { return (r.Max.X - r.Min.X) * (r.Max.Y - r.Min.Y) }
func (r *Rect) Center() Vec3    { return Vec3{(r.Min.X + r.Max.X) / 2, (r.Min.Y + r.Max.Y) / 2, 0} }
func (p Polygon) Area() float64 { return float64(len(p.Pts)) }
func (p Polygon) Center() Vec3 {
	if len(p.Pts) == 0 {
		return Vec3{}
	}
	return p.Pts[0]
}

type Material struct {
	Name  string
	Color [4]float32
	Tex   []byte
}

type Mesh struct {
	Verts    []Vec3
	Faces    [][3]int32
	Material *Material
	Bounds   Rect
}

// Maps of several key and value types.

type CacheKey struct {
	Tenant, Kind int32
	Name         string
}

type CacheEntry struct {
	Key        CacheKey
	Val        []byte
	Prev, Next *CacheEntry
	Expires    int64
}

type LRU struct {
	Items      map[CacheKey]*CacheEntry
	Head, Tail *CacheEntry
}

type Point2 struct{ X, Y int64 }

type StockLevel struct {
	Item             *StockItem
	OnHand, Reserved int64
	Where            GeoPoint
}

type Index struct {
	BySKU  map[string]*Product
	Levels map[int64]StockLevel
	Seen   map[CacheKey]struct{}
	Cells  map[Point2]struct{}
	Prices map[string]Money
}

// Closures: func values in struct fields and slices, capturing by value and
// (Counter) by reference, and method values.

type Counter struct {
	N    int64
	Name string
}

func (c *Counter) Add(d int) int {
	c.N += int64(d)
	return int(c.N)
}

type RetryPolicy struct {
	Max     int32
	Backoff func(int) int64
}

type Job struct {
	ID     int64
	Run    func() int64
	OnDone func(error)
	Deps   []*Job
	Retry  RetryPolicy
}

type Handler struct {
	Pattern    string
	Fn         func([]byte) int
	Middleware []func(int) int
}

// Channels with elements in their buffers.

type Event struct {
	Kind  int32
	Order *Order
	Msg   string
}

type Bus struct {
	Events chan Event
	Jobs   chan *Job
	Points chan Vec3
	Names  chan string
	Any    chan any
}

// Generic types, instantiated with several type arguments below.

type Pair[K comparable, V any] struct {
	Key  K
	Val  V
	Next *Pair[K, V]
}

type Tree[T any] struct {
	Left, Right *Tree[T]
	Key         int64
	Val         T
}

type Stack[T any] struct {
	Name  string
	Items []T
}

type TypedWorld struct {
	Roles      []*Role
	Banks      []*Bank
	Suppliers  []*Supplier
	Products   []*Product
	Warehouses []*Warehouse
	Customers  []*Customer

	Traces  []*Trace
	Metrics []*Metric
	Logs    [][]LogEntry

	Files  []*File
	Scopes []*Scope
	Exprs  []Expr

	Materials []*Material
	Shapes    []Shape
	Meshes    []*Mesh
	Anys      []any

	Indexes []*Index
	Caches  []*LRU

	Jobs     []*Job
	Handlers [][]Handler
	Thunks   []func() string

	Buses []*Bus

	Counts  []*Pair[string, int64]
	ByID    []*Pair[int64, *Product]
	Quotes  []*Pair[CacheKey, Money]
	Named   []*Pair[string, Shape]
	Blobs   []*Pair[Vec3, []byte]
	Ledgers []*Tree[Money]
	SpanIdx []*Tree[*Span]
	Words   []*Tree[string]
	LabelSt []*Stack[Label]
	LineSt  []*Stack[OrderLine]

	Strings [][]string
	Bytes   [][][]byte
}

var tw *TypedWorld

// Constant strings: static data, never allocated.
var (
	currencies = [...]string{"EUR", "USD", "GBP", "JPY", "CHF", "SEK"}
	cityNames  = [...]string{"Amsterdam", "Berlin", "Chicago", "Dublin", "Edinburgh", "Florence", "Geneva", "Helsinki"}
	zipCodes   = [...]string{"1011 AB", "10115", "60601", "D02", "EH1 1AA", "50100", "1201", "00100"}
	resources  = [...]string{"orders", "products", "invoices", "users", "reports", "settings"}
	labelKeys  = [...]string{"service", "region", "instance"}
	regions    = [...]string{"eu-west-1", "us-east-1", "ap-south-1", "eu-central-1"}
	attrKeys   = [...]string{"http.method", "http.route", "db.statement", "peer", "user", "payload"}
	eventNames = [...]string{"start", "retry", "cache miss", "commit", "end"}
	fieldKeys  = [...]string{"user_id", "order_id", "path", "error"}
	bics       = [...]string{"DEUTDEFF", "INGBNL2A", "BARCGB22", "CHASUS33"}
	tagSets    = [][]string{{"new"}, {"vip", "eu"}, {"b2b", "net30", "priority"}, {}, {"test"}}
)

func newBase(rng *rand.Rand, id int64) Base {
	return Base{ID: id, Created: rng.Int63(), Tags: tagSets[id%int64(len(tagSets))]}
}

func newMoney(rng *rand.Rand) Money {
	return Money{Amount: rng.Int63n(1_000_000), Currency: currencies[rng.Intn(len(currencies))]}
}

func newGeo(rng *rand.Rand) GeoPoint {
	return GeoPoint{rng.Float64()*180 - 90, rng.Float64()*360 - 180}
}

func newVec(rng *rand.Rand) Vec3 { return Vec3{rng.Float64(), rng.Float64(), rng.Float64()} }

func newDims(rng *rand.Rand) Dimensions {
	return Dimensions{rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32() * 20}
}

// newAddress makes one string.
func newAddress(rng *rand.Rand) Address {
	k := rng.Intn(len(cityNames))
	return Address{Street: randString(rng, 16, 40), City: cityNames[k], Zip: zipCodes[k], Geo: newGeo(rng)}
}

func newBytes(rng *rand.Rand, min, max int) []byte {
	b := make([]byte, min+rng.Intn(max-min+1))
	b[0] = byte(len(b))
	made++
	return b
}

func pickProduct(rng *rand.Rand) *Product {
	if len(tw.Products) == 0 {
		return nil
	}
	return tw.Products[rng.Intn(len(tw.Products))]
}

func pickOrder(rng *rand.Rand) *Order {
	c := tw.Customers[rng.Intn(len(tw.Customers))]
	return c.Orders[rng.Intn(len(c.Orders))]
}

func newRole(rng *rand.Rand, parent *Role) *Role {
	r := &Role{Name: randString(rng, 16, 24), Parent: parent}
	made++
	for i := range r.Perms {
		r.Perms[i] = Permission{Resource: resources[rng.Intn(len(resources))], Mask: rng.Uint32()}
	}
	return r
}

func newBank(rng *rand.Rand) *Bank {
	made++
	return &Bank{Name: randString(rng, 16, 32), Addr: newAddress(rng)}
}

func newSupplier(rng *rand.Rand, id int64) *Supplier {
	s := &Supplier{Base: newBase(rng, id), Name: randString(rng, 16, 40), Addr: newAddress(rng)}
	made++
	s.Contacts = make([]Contact, 3)
	made++
	for i := range s.Contacts {
		s.Contacts[i] = Contact{Kind: uint8(i), Verified: rng.Intn(2) == 0, Value: randString(rng, 16, 32)}
	}
	return s
}

func newProduct(rng *rand.Rand, id int64) *Product {
	p := &Product{
		Base:     newBase(rng, id),
		SKU:      randString(rng, 16, 24),
		Title:    randString(rng, 20, 60),
		Price:    newMoney(rng),
		Dims:     newDims(rng),
		Supplier: tw.Suppliers[rng.Intn(len(tw.Suppliers))],
	}
	made++
	p.Related[0] = pickProduct(rng)
	p.Related[1] = pickProduct(rng)
	return p
}

func newWarehouse(rng *rand.Rand, id int64) *Warehouse {
	w := &Warehouse{Base: newBase(rng, id), Name: randString(rng, 16, 32), Loc: newGeo(rng)}
	made++
	w.Bins = make([]Bin, 8)
	made++
	for i := range w.Bins {
		b := &w.Bins[i]
		rng.Read(b.Code[:])
		b.Items = make([]*StockItem, 4)
		made++
		for j := range b.Items {
			b.Items[j] = &StockItem{Product: pickProduct(rng), Count: rng.Int63n(1000), Bin: b}
			made++
		}
	}
	return w
}

func newUser(rng *rand.Rand, id int64) *User {
	u := &User{Base: newBase(rng, id), Name: randString(rng, 16, 32), Email: randString(rng, 16, 40), Home: newAddress(rng)}
	made++
	u.Roles = make([]*Role, 2)
	made++
	for i := range u.Roles {
		u.Roles[i] = tw.Roles[rng.Intn(len(tw.Roles))]
	}
	return u
}

func newPayment(rng *rand.Rand, id int64, amount Money) *Payment {
	p := &Payment{Base: newBase(rng, id), Amount: amount, Ref: randString(rng, 16, 24)}
	made++
	if rng.Intn(2) == 0 {
		p.Method = Card{Number: randString(rng, 16, 19), Exp: [2]uint16{uint16(1 + rng.Intn(12)), uint16(2025 + rng.Intn(8))}, Holder: randString(rng, 16, 32)}
		made++ // the boxed Card
	} else {
		p.Method = &BankTransfer{IBAN: randString(rng, 18, 34), BIC: bics[rng.Intn(len(bics))], Bank: tw.Banks[rng.Intn(len(tw.Banks))]}
		made++
	}
	return p
}

func newOrder(rng *rand.Rand, id int64, c *Customer) *Order {
	o := &Order{Base: newBase(rng, id), Customer: c, Status: int32(rng.Intn(5))}
	made++
	var total int64
	for i := range o.Lines {
		l := OrderLine{Product: pickProduct(rng), Qty: int32(1 + rng.Intn(9)), Price: newMoney(rng)}
		total += l.Price.Amount * int64(l.Qty)
		o.Lines[i] = l
	}
	if k := rng.Intn(7); k > 0 {
		o.Extra = make([]OrderLine, k)
		made++
		for i := range o.Extra {
			o.Extra[i] = OrderLine{Product: pickProduct(rng), Qty: 1, Price: newMoney(rng)}
		}
	}
	o.Total = Money{Amount: total, Currency: o.Lines[0].Price.Currency}
	o.Notes = newBytes(rng, 16, 64)
	if rng.Intn(2) == 0 {
		s := &Shipment{Base: newBase(rng, id), Order: o, From: tw.Warehouses[rng.Intn(len(tw.Warehouses))]}
		made++
		for i := range s.Parcels {
			s.Parcels[i] = Parcel{Weight: rng.Float64() * 30, Label: randString(rng, 16, 32), Dims: newDims(rng)}
		}
		s.Track = make([]TrackEvent, 2+rng.Intn(4))
		made++
		for i := range s.Track {
			s.Track[i] = TrackEvent{At: rng.Int63(), Where: newGeo(rng), Msg: randString(rng, 16, 48)}
		}
		o.Shipment = s
	}
	inv := &Invoice{Base: newBase(rng, id), Order: o, Due: o.Total}
	made++
	inv.Lines = make([]InvoiceLine, 1+rng.Intn(3))
	made++
	for i := range inv.Lines {
		inv.Lines[i] = InvoiceLine{Desc: randString(rng, 16, 48), Amount: newMoney(rng), Tax: newMoney(rng)}
	}
	if rng.Intn(3) != 0 {
		inv.Paid = newPayment(rng, id, o.Total)
	}
	o.Invoice = inv
	return o
}

func newCustomer(rng *rand.Rand, id int64) *Customer {
	u := newUser(rng, id)
	c := &Customer{
		Base:     newBase(rng, id),
		Audit:    &Audit{By: u, At: rng.Int63(), Note: randString(rng, 16, 64)},
		User:     u,
		Billing:  newAddress(rng),
		Shipping: newAddress(rng),
		Credit:   newMoney(rng),
	}
	made += 2 // the Customer and its Audit
	// 2 to 4 orders: a backing array of one pointer would be 8 bytes.
	c.Orders = make([]*Order, 2+rng.Intn(3))
	made++
	for i := range c.Orders {
		c.Orders[i] = newOrder(rng, id*8+int64(i), c)
	}
	return c
}

// commerceUnit makes one customer with its user, orders, shipments,
// invoices and payments, and now and then the products, suppliers and
// warehouses they refer to.
func commerceUnit(rng *rand.Rand, id int64) {
	if len(tw.Roles) == 0 {
		var parent *Role
		for i := 0; i < 16; i++ {
			parent = newRole(rng, parent)
			tw.Roles = append(tw.Roles, parent)
		}
		for i := 0; i < 8; i++ {
			tw.Banks = append(tw.Banks, newBank(rng))
		}
	}
	if id%64 == 0 {
		tw.Suppliers = append(tw.Suppliers, newSupplier(rng, id))
	}
	if id%4 == 0 {
		for i := int64(0); i < 4; i++ {
			tw.Products = append(tw.Products, newProduct(rng, id*4+i))
		}
	}
	if id%64 == 0 {
		tw.Warehouses = append(tw.Warehouses, newWarehouse(rng, id))
	}
	tw.Customers = append(tw.Customers, newCustomer(rng, id))
}

// anyValue is an interface value of one of several dynamic types, boxed
// (counted) or pointer-shaped (not allocated).
func anyValue(rng *rand.Rand, sp *Span) any {
	switch rng.Intn(8) {
	case 0:
		s := randString(rng, 16, 40)
		made++ // the boxed string header
		return s
	case 1:
		made++
		return newMoney(rng)
	case 2:
		made++
		return newVec(rng)
	case 3:
		if sp != nil {
			return sp
		}
		fallthrough
	case 4:
		made++
		return Label{Key: labelKeys[rng.Intn(len(labelKeys))], Value: randString(rng, 16, 24)}
	case 5:
		b := newBytes(rng, 16, 48)
		made++ // the boxed slice header
		return b
	case 6:
		return pickProduct(rng)
	default:
		made++
		return Circle{C: newVec(rng), R: rng.Float64()}
	}
}

func newTrace(rng *rand.Rand) *Trace {
	t := &Trace{}
	made++
	t.Spans = make([]*Span, 4+rng.Intn(8))
	made++
	var parent *Span
	var id [16]byte
	rng.Read(id[:])
	for i := range t.Spans {
		s := &Span{TraceID: id, SpanID: rng.Uint64(), Parent: parent, Name: randString(rng, 16, 40)}
		made++
		s.Events[0] = SpanEvent{Name: eventNames[rng.Intn(len(eventNames))], At: rng.Int63()}
		s.Events[1] = SpanEvent{Name: eventNames[len(eventNames)-1], At: rng.Int63()}
		s.Attrs = make([]Attr, 1+rng.Intn(4))
		made++
		for j := range s.Attrs {
			s.Attrs[j] = Attr{Key: attrKeys[rng.Intn(len(attrKeys))], Val: anyValue(rng, parent)}
		}
		t.Spans[i] = s
		if rng.Intn(3) != 0 {
			parent = s
		}
	}
	t.Root = t.Spans[0]
	return t
}

func newMetric(rng *rand.Rand, t *Trace) *Metric {
	m := &Metric{Name: randString(rng, 16, 40)}
	made++
	m.Labels[0] = Label{Key: labelKeys[0], Value: randString(rng, 16, 24)}
	m.Labels[1] = Label{Key: labelKeys[1], Value: regions[rng.Intn(len(regions))]}
	m.Labels[2] = Label{Key: labelKeys[2], Value: regions[rng.Intn(len(regions))]}
	m.Samples = make([]Sample, 16)
	made++
	for i := range m.Samples {
		m.Samples[i] = Sample{T: rng.Int63(), V: rng.Float64(), Exemplar: t.Spans[rng.Intn(len(t.Spans))]}
	}
	m.Hist = &Histogram{Owner: m, Sum: rng.Float64()}
	made++
	m.Hist.Bounds = make([]float64, 8)
	m.Hist.Counts = make([]uint64, 9)
	made += 2
	return m
}

func appendLog(rng *rand.Rand, t *Trace) {
	if len(tw.Logs) == 0 || len(tw.Logs[len(tw.Logs)-1]) == cap(tw.Logs[len(tw.Logs)-1]) {
		tw.Logs = append(tw.Logs, make([]LogEntry, 0, 128))
		made++
	}
	e := LogEntry{Level: int8(rng.Intn(5)), At: rng.Int63(), Msg: randString(rng, 24, 100), Span: t.Spans[rng.Intn(len(t.Spans))]}
	e.Fields = make([]Field, 2)
	made++
	for i := range e.Fields {
		e.Fields[i] = Field{Key: fieldKeys[rng.Intn(len(fieldKeys))], Str: randString(rng, 16, 32), Int: rng.Int63()}
	}
	last := &tw.Logs[len(tw.Logs)-1]
	*last = append(*last, e)
}

// telemetryUnit makes a trace of spans, a metric whose samples point into
// it and eight log entries.
func telemetryUnit(rng *rand.Rand) {
	t := newTrace(rng)
	tw.Traces = append(tw.Traces, t)
	tw.Metrics = append(tw.Metrics, newMetric(rng, t))
	for i := 0; i < 8; i++ {
		appendLog(rng, t)
	}
}

func newExpr(rng *rand.Rand, f *File, objs []*Object, depth int) Expr {
	pos := Pos{File: f, Line: int32(rng.Intn(len(f.Lines))), Col: int32(rng.Intn(80))}
	if depth == 0 || rng.Intn(4) == 0 {
		if len(objs) > 0 && rng.Intn(2) == 0 {
			o := objs[rng.Intn(len(objs))]
			made++
			return &Ident{NamePos: pos, Name: o.Name, Obj: o}
		}
		made++
		return &BasicLit{ValuePos: pos, Kind: int32(rng.Intn(5)), Value: randString(rng, 16, 24)}
	}
	switch rng.Intn(3) {
	case 0:
		made++
		return &BinaryExpr{OpPos: pos, Op: int32(rng.Intn(20)), X: newExpr(rng, f, objs, depth-1), Y: newExpr(rng, f, objs, depth-1)}
	case 1:
		args := make([]Expr, 1+rng.Intn(3))
		made++
		for i := range args {
			args[i] = newExpr(rng, f, objs, depth-1)
		}
		made++
		return &CallExpr{Lparen: pos, Fun: newExpr(rng, f, objs, 0), Args: args}
	default:
		made++ // the boxed ParenExpr
		return ParenExpr{Lparen: pos, X: newExpr(rng, f, objs, depth-1)}
	}
}

// newScope makes a scope with a small map (at most 8 entries: its header
// and one group) of objects.
func newScope(rng *rand.Rand, outer *Scope) (*Scope, []*Object) {
	s := &Scope{Outer: outer, Objects: make(map[string]*Object)}
	made += 3 // the Scope, the map and its group
	objs := make([]*Object, 1+rng.Intn(8))
	for i := range objs {
		o := &Object{Name: randString(rng, 16, 24), Kind: int32(rng.Intn(6))}
		made++
		s.Objects[o.Name] = o
		objs[i] = o
	}
	return s, objs
}

// astUnit makes a source file, three nested scopes and six expressions.
func astUnit(rng *rand.Rand) {
	f := &File{Name: randString(rng, 16, 32)}
	made++
	f.Src = newBytes(rng, 256, 1280)
	f.Lines = make([]int32, 16)
	made++
	tw.Files = append(tw.Files, f)
	var scope *Scope
	var all []*Object
	for i := 0; i < 3; i++ {
		var objs []*Object
		scope, objs = newScope(rng, scope)
		all = append(all, objs...)
	}
	tw.Scopes = append(tw.Scopes, scope)
	for i := 0; i < 6; i++ {
		e := newExpr(rng, f, all, 4)
		all[rng.Intn(len(all))].Decl = e
		tw.Exprs = append(tw.Exprs, e)
	}
}

func newShape(rng *rand.Rand) Shape {
	switch rng.Intn(3) {
	case 0:
		made++ // the boxed Circle
		return Circle{C: newVec(rng), R: rng.Float64()}
	case 1:
		made++
		return &Rect{Min: newVec(rng), Max: newVec(rng)}
	default:
		p := Polygon{Name: randString(rng, 16, 32), Pts: make([]Vec3, 3+rng.Intn(6))}
		made += 2 // the points and the boxed Polygon
		for i := range p.Pts {
			p.Pts[i] = newVec(rng)
		}
		return p
	}
}

// anyBagValue is like anyValue with more dynamic types: maps, funcs, shapes.
func anyBagValue(rng *rand.Rand) any {
	switch rng.Intn(4) {
	case 0:
		m := map[string]int64{"a": rng.Int63(), "b": rng.Int63()}
		made += 2 // the map and its group
		return m
	case 1:
		k := rng.Int63()
		made++ // the closure
		return func() int64 { return k * 3 }
	case 2:
		return newShape(rng)
	default:
		return anyValue(rng, nil)
	}
}

// interfaceUnit makes 16 shapes, a mesh and 16 values in a []any.
func interfaceUnit(rng *rand.Rand) {
	if len(tw.Materials) < 16 {
		m := &Material{Name: randString(rng, 16, 24), Color: [4]float32{rng.Float32(), rng.Float32(), rng.Float32(), 1}}
		made++
		m.Tex = newBytes(rng, 64, 256)
		tw.Materials = append(tw.Materials, m)
	}
	for i := 0; i < 16; i++ {
		tw.Shapes = append(tw.Shapes, newShape(rng))
	}
	m := &Mesh{Material: tw.Materials[rng.Intn(len(tw.Materials))], Bounds: Rect{Max: Vec3{1, 1, 1}}}
	made++
	m.Verts = make([]Vec3, 8+rng.Intn(56))
	m.Faces = make([][3]int32, 4+rng.Intn(28))
	made += 2
	for i := range m.Verts {
		m.Verts[i] = newVec(rng)
	}
	tw.Meshes = append(tw.Meshes, m)
	for i := 0; i < 16; i++ {
		tw.Anys = append(tw.Anys, anyBagValue(rng))
	}
}

// mapUnit makes an Index of five maps and an LRU cache; maps of more than
// 8 entries count only their header (their directory, tables and groups
// come on top).
func mapUnit(rng *rand.Rand, size int) {
	x := &Index{
		BySKU:  make(map[string]*Product, size),
		Levels: make(map[int64]StockLevel, size),
		Seen:   make(map[CacheKey]struct{}, size),
		Cells:  make(map[Point2]struct{}, size/4),
		Prices: make(map[string]Money, size/4),
	}
	made += 6
	for i := 0; i < size; i++ {
		x.BySKU[randString(rng, 16, 32)] = pickProduct(rng)
		x.Levels[rng.Int63()] = StockLevel{
			Item:   &StockItem{Product: pickProduct(rng), Count: rng.Int63n(500)},
			OnHand: rng.Int63n(500), Reserved: rng.Int63n(50), Where: newGeo(rng),
		}
		made++
		x.Seen[CacheKey{Tenant: rng.Int31(), Kind: int32(i % 7), Name: randString(rng, 16, 32)}] = struct{}{}
	}
	for i := 0; i < size/4; i++ {
		x.Cells[Point2{rng.Int63(), rng.Int63()}] = struct{}{}
		x.Prices[randString(rng, 16, 24)] = newMoney(rng)
	}
	tw.Indexes = append(tw.Indexes, x)
	tw.Caches = append(tw.Caches, newLRU(rng, size/2))
}

func newLRU(rng *rand.Rand, size int) *LRU {
	l := &LRU{Items: make(map[CacheKey]*CacheEntry, size)}
	made += 2
	for i := 0; i < size; i++ {
		e := &CacheEntry{
			Key:     CacheKey{Tenant: rng.Int31(), Kind: int32(i % 3), Name: randString(rng, 16, 40)},
			Val:     newBytes(rng, 16, 128),
			Prev:    l.Tail,
			Expires: rng.Int63(),
		}
		made++
		if l.Tail != nil {
			l.Tail.Next = e
		} else {
			l.Head = e
		}
		l.Tail = e
		l.Items[e.Key] = e
	}
	return l
}

func newJob(rng *rand.Rand, deps []*Job) *Job {
	j := &Job{ID: rng.Int63()}
	made++
	o := pickOrder(rng)
	total := o.Total
	scale := rng.Int63n(100) + 1
	j.Run = func() int64 { return total.Amount*scale + int64(len(o.Notes)) }
	made++ // the closure: total, scale and o captured by value
	c := Counter{Name: randString(rng, 16, 32)}
	j.OnDone = func(err error) {
		if err != nil {
			c.N++
		}
	}
	made += 2 // the closure and c, captured by reference
	if len(deps) > 0 {
		j.Deps = append([]*Job(nil), deps...)
		made++
	}
	base := rng.Int63n(1000) + 1
	factor := 1 + rng.Float64()
	j.Retry = RetryPolicy{Max: int32(1 + rng.Intn(5)), Backoff: func(n int) int64 {
		d := float64(base)
		for i := 0; i < n; i++ {
			d *= factor
		}
		return int64(d)
	}}
	made++
	return j
}

func newHandler(rng *rand.Rand) Handler {
	prefix := newBytes(rng, 16, 32)
	h := Handler{Pattern: randString(rng, 16, 40)}
	h.Fn = func(b []byte) int {
		n := 0
		for n < len(b) && n < len(prefix) && b[n] == prefix[n] {
			n++
		}
		return n
	}
	made++
	h.Middleware = make([]func(int) int, 3)
	made++
	ctr := &Counter{Name: randString(rng, 16, 24)}
	made++
	h.Middleware[0] = ctr.Add // a method value: a closure holding ctr
	lim := rng.Intn(1000) + 1
	h.Middleware[1] = func(n int) int {
		if n > lim {
			return lim
		}
		return n
	}
	tag := randString(rng, 16, 24)
	h.Middleware[2] = func(n int) int { return n + len(tag) }
	made += 3
	return h
}

// closureUnit makes 8 jobs, 4 handlers and 4 thunks.
func closureUnit(rng *rand.Rand) {
	for i := 0; i < 8; i++ {
		var deps []*Job
		if k := len(tw.Jobs); k >= 2 && i > 0 {
			deps = tw.Jobs[k-2:]
		}
		tw.Jobs = append(tw.Jobs, newJob(rng, deps))
	}
	for i := 0; i < 4; i++ {
		if len(tw.Handlers) == 0 || len(tw.Handlers[len(tw.Handlers)-1]) == cap(tw.Handlers[len(tw.Handlers)-1]) {
			tw.Handlers = append(tw.Handlers, make([]Handler, 0, 64))
			made++
		}
		last := &tw.Handlers[len(tw.Handlers)-1]
		*last = append(*last, newHandler(rng))
	}
	for i := 0; i < 4; i++ {
		c := tw.Customers[rng.Intn(len(tw.Customers))]
		suffix := randString(rng, 16, 24)
		tw.Thunks = append(tw.Thunks, func() string { return c.User.Name + suffix })
		made++
	}
}

// channelUnit makes a Bus of five buffered channels, partly filled. A
// channel whose elements hold pointers is two objects (hchan and buffer),
// one whose elements do not is one.
func channelUnit(rng *rand.Rand) {
	b := &Bus{
		Events: make(chan Event, 16),
		Jobs:   make(chan *Job, 8),
		Points: make(chan Vec3, 32),
		Names:  make(chan string, 8),
		Any:    make(chan any, 8),
	}
	made += 1 + 2 + 2 + 1 + 2 + 2
	for i := 0; i < 12; i++ {
		b.Events <- Event{Kind: int32(i), Order: pickOrder(rng), Msg: randString(rng, 16, 48)}
	}
	for i := 0; i < 6 && i < len(tw.Jobs); i++ {
		b.Jobs <- tw.Jobs[rng.Intn(len(tw.Jobs))]
	}
	for i := 0; i < 20; i++ {
		b.Points <- newVec(rng)
	}
	for i := 0; i < 8; i++ {
		b.Names <- randString(rng, 16, 32)
	}
	for i := 0; i < 6; i++ {
		b.Any <- anyValue(rng, nil)
	}
	tw.Buses = append(tw.Buses, b)
}

func newChain[K comparable, V any](n int, key func() K, val func() V) *Pair[K, V] {
	var head *Pair[K, V]
	for i := 0; i < n; i++ {
		head = &Pair[K, V]{Key: key(), Val: val(), Next: head}
		made++
	}
	return head
}

func newTree[T any](lo, hi int64, val func() T) *Tree[T] {
	if lo >= hi {
		return nil
	}
	mid := (lo + hi) / 2
	t := &Tree[T]{Key: mid, Val: val()}
	made++
	t.Left = newTree(lo, mid, val)
	t.Right = newTree(mid+1, hi, val)
	return t
}

func newStack[T any](rng *rand.Rand, n int, val func() T) *Stack[T] {
	s := &Stack[T]{Name: randString(rng, 16, 24), Items: make([]T, n)}
	made += 2
	for i := range s.Items {
		s.Items[i] = val()
	}
	return s
}

// genericUnit makes one of each instantiation: five Pair chains, three
// trees and two stacks of 16 to 32 elements.
func genericUnit(rng *rand.Rand) {
	str := func() string { return randString(rng, 16, 32) }
	tw.Counts = append(tw.Counts, newChain(32, str, rng.Int63))
	tw.ByID = append(tw.ByID, newChain(32, rng.Int63, func() *Product { return pickProduct(rng) }))
	tw.Quotes = append(tw.Quotes, newChain(32,
		func() CacheKey { return CacheKey{Tenant: rng.Int31(), Name: randString(rng, 16, 24)} },
		func() Money { return newMoney(rng) }))
	tw.Named = append(tw.Named, newChain(16, str, func() Shape { return newShape(rng) }))
	tw.Blobs = append(tw.Blobs, newChain(16, func() Vec3 { return newVec(rng) }, func() []byte { return newBytes(rng, 16, 64) }))
	tw.Ledgers = append(tw.Ledgers, newTree(0, 32, func() Money { return newMoney(rng) }))
	tw.SpanIdx = append(tw.SpanIdx, newTree(0, 32, func() *Span {
		t := tw.Traces[rng.Intn(len(tw.Traces))]
		return t.Spans[rng.Intn(len(t.Spans))]
	}))
	tw.Words = append(tw.Words, newTree(0, 32, str))
	tw.LabelSt = append(tw.LabelSt, newStack(rng, 16, func() Label {
		return Label{Key: labelKeys[rng.Intn(len(labelKeys))], Value: randString(rng, 16, 24)}
	}))
	tw.LineSt = append(tw.LineSt, newStack(rng, 16, func() OrderLine {
		return OrderLine{Product: pickProduct(rng), Qty: 1, Price: newMoney(rng)}
	}))
}

// stringUnit makes 256 strings in a []string and 64 byte slices in a [][]byte.
func stringUnit(rng *rand.Rand) {
	ss := make([]string, 256)
	made++
	for i := range ss {
		ss[i] = randString(rng, 16, 120)
	}
	tw.Strings = append(tw.Strings, ss)
	bs := make([][]byte, 64)
	made++
	for i := range bs {
		bs[i] = buildBytes(rng)
	}
	tw.Bytes = append(tw.Bytes, bs)
}

// A phase of the typed mode and the objects it made.
type phase struct {
	name    string
	percent int64
	made    int64
}

// buildTyped builds the typed mode's heap: each phase makes units until
// its share of N is reached, then the goroutines' structures.
func buildTyped(n int64, rng *rand.Rand) []phase {
	tw = &TypedWorld{}
	made++
	mapSize := 256
	if n < 1_000_000 {
		mapSize = 32
	}
	var id int64
	units := []func(){
		func() { commerceUnit(rng, id); id++ },
		func() { telemetryUnit(rng) },
		func() { astUnit(rng) },
		func() { interfaceUnit(rng) },
		func() { mapUnit(rng, mapSize) },
		func() { closureUnit(rng) },
		func() { channelUnit(rng) },
		func() { genericUnit(rng) },
		func() { stringUnit(rng) },
	}
	mix := []phase{
		{name: "commerce", percent: 25},
		{name: "telemetry", percent: 12},
		{name: "syntax trees", percent: 10},
		{name: "interfaces", percent: 10},
		{name: "maps", percent: 15},
		{name: "closures", percent: 10},
		{name: "channels", percent: 5},
		{name: "generics", percent: 8},
		{name: "strings", percent: 5},
	}
	base, cum := made, int64(0)
	for i := range mix {
		cum += mix[i].percent
		before := made
		for target := base + n*cum/100; made < target; {
			units[i]()
		}
		mix[i].made = made - before
	}

	// Goroutine-held structures: 0.3% of N more.
	never := make(chan Event)
	var customers []*Customer
	for target := made + n/1000; made < target; id++ {
		customers = append(customers, newCustomer(rng, id))
	}
	var jobs []*Job
	for target := made + n/1000; made < target; {
		var deps []*Job
		if len(jobs) >= 2 {
			deps = jobs[len(jobs)-2:]
		}
		jobs = append(jobs, newJob(rng, deps))
	}
	lru := newLRU(rng, int(n/1000/3))
	go customerWaiter(customers, never)
	go jobSleeper(jobs)
	go cacheSelecter(lru, make(chan int), make(chan int))
	return mix
}

//go:noinline
func customerWaiter(cs []*Customer, ch <-chan Event) {
	<-ch
	runtime.KeepAlive(cs)
}

//go:noinline
func jobSleeper(jobs []*Job) {
	time.Sleep(24 * time.Hour)
	runtime.KeepAlive(jobs)
}

//go:noinline
func cacheSelecter(l *LRU, a, b <-chan int) {
	select {
	case <-a:
	case <-b:
	}
	runtime.KeepAlive(l)
}

func printMix(mix []phase) {
	if mix == nil {
		return
	}
	var total int64
	for _, p := range mix {
		total += p.made
	}
	fmt.Print("typed mix:")
	for i, p := range mix {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Printf("%s %s %.1f%% (%d)", sep, p.name, 100*float64(p.made)/float64(total), p.made)
	}
	fmt.Println()
}
