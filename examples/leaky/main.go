// Command leaky is a small web-shop backend with three memory leaks of the
// kinds that are common in real Go services. It serves a burst of simulated
// requests and then writes a heap dump, to show what goheap finds:
//
//  1. Server.sessions, a session cache that only ever grows: nothing evicts
//     a session when it expires.
//  2. Logger.recent, "the last 50 log lines", made by re-slicing the slice of
//     all lines: the whole backing array, and every line in it, stays alive.
//  3. Recommendation lookups that time out: the handler stops waiting, but
//     the goroutine doing the lookup blocks forever sending its result on an
//     unbuffered channel, and keeps its result buffer with it.
//
// Usage: leaky [DUMP_PATH]   (default leaky.dump)
package main

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

type Item struct {
	SKU      string
	Quantity int
	Price    int64 // cents
}

type Session struct {
	ID       string
	User     string
	Created  time.Time
	LastSeen time.Time
	Cart     []Item
	Prefs    map[string]string
}

type Request struct {
	Path    string
	User    string
	Session string
}

type Logger struct {
	mu     sync.Mutex
	lines  []string
	recent []string // the last 50 lines, for the status page
}

func (l *Logger) Printf(format string, args ...any) {
	line := time.Unix(1700000000, 0).UTC().Format(time.RFC3339) + " " + fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	if len(l.lines) > 50 {
		// Leak 2: recent shares lines' backing array, and lines is never trimmed.
		l.recent = l.lines[len(l.lines)-50:]
	}
}

type Recommendations struct {
	User  string
	SKUs  []string
	Blob  []byte // model output kept for debugging
	Score float64
}

type Server struct {
	mu       sync.Mutex
	sessions map[string]*Session // leak 1: never evicted
	log      *Logger
	rng      *rand.Rand
	served   int
	stats    map[string]int
}

var server *Server

func NewServer() *Server {
	return &Server{
		sessions: make(map[string]*Session),
		log:      &Logger{},
		rng:      rand.New(rand.NewSource(1)),
		stats:    make(map[string]int),
	}
}

func (s *Server) session(req *Request) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[req.Session]; ok {
		sess.LastSeen = sess.LastSeen.Add(time.Second)
		return sess
	}
	sess := &Session{
		ID:       req.Session,
		User:     req.User,
		Created:  time.Unix(1700000000, 0),
		LastSeen: time.Unix(1700000000, 0),
		Prefs:    map[string]string{"lang": "en", "currency": "EUR"},
	}
	s.sessions[req.Session] = sess
	return sess
}

// recommend looks up recommendations; slow lookups are abandoned after a
// timeout, but the lookup goroutine is not told and leaks (leak 3).
func (s *Server) recommend(user string, slow bool) *Recommendations {
	result := make(chan *Recommendations) // unbuffered: the bug
	go lookupRecommendations(user, slow, result)
	select {
	case r := <-result:
		return r
	case <-time.After(10 * time.Millisecond):
		s.log.Printf("recommendations for %s timed out", user)
		return nil
	}
}

func lookupRecommendations(user string, slow bool, result chan<- *Recommendations) {
	r := &Recommendations{User: user, Blob: make([]byte, 8<<10), Score: 0.5}
	for i := 0; i < 8; i++ {
		r.SKUs = append(r.SKUs, fmt.Sprintf("SKU-%05d", i*97%10000))
	}
	if slow {
		time.Sleep(50 * time.Millisecond)
	}
	result <- r // blocks forever once the handler has given up
}

func (s *Server) Handle(req *Request) {
	sess := s.session(req)
	switch {
	case strings.HasPrefix(req.Path, "/cart/add/"):
		sku := strings.TrimPrefix(req.Path, "/cart/add/")
		sess.Cart = append(sess.Cart, Item{SKU: sku, Quantity: 1, Price: int64(100 + len(sku)*7)})
	case req.Path == "/home":
		if r := s.recommend(req.User, s.rng.Intn(25) == 0); r != nil {
			s.stats["recommendations"]++
		}
	}
	s.mu.Lock()
	s.served++
	s.stats[req.Path]++
	s.mu.Unlock()
	s.log.Printf("%s %s session=%s user=%s", "GET", req.Path, req.Session, req.User)
}

// A well-behaved background worker, for contrast: it waits for work on a channel.
func metricsFlusher(s *Server, tick <-chan struct{}) {
	for range tick {
		s.mu.Lock()
		s.stats["flushes"]++
		s.mu.Unlock()
	}
}

func main() {
	dumpPath := "leaky.dump"
	if len(os.Args) > 1 {
		dumpPath = os.Args[1]
	}
	server = NewServer()
	tick := make(chan struct{})
	go metricsFlusher(server, tick)

	paths := []string{"/home", "/search", "/cart/add/"}
	for i := 0; i < 1500; i++ {
		user := fmt.Sprintf("user%04d", server.rng.Intn(1500))
		req := &Request{
			Path:    paths[server.rng.Intn(len(paths))],
			User:    user,
			Session: fmt.Sprintf("%s-%08x", user, server.rng.Uint32()),
		}
		if req.Path == "/cart/add/" {
			req.Path += fmt.Sprintf("SKU-%05d", server.rng.Intn(10000))
		}
		server.Handle(req)
		if i%500 == 0 {
			tick <- struct{}{}
		}
	}
	time.Sleep(200 * time.Millisecond) // let the slow lookups reach their send

	runtime.GC()
	f, err := os.Create(dumpPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaky:", err)
		os.Exit(1)
	}
	debug.WriteHeapDump(f.Fd())
	f.Close()
	fmt.Printf("served %d requests, %d sessions cached, %d log lines, heap dump in %s\n",
		server.served, len(server.sessions), len(server.log.lines), dumpPath)
	runtime.KeepAlive(server)
}
