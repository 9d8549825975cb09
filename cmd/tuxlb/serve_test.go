package main

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/netutil"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true}, {"2K", 2048, true}, {"10M", 10 << 20, true}, {"10MiB", 10 << 20, true},
		{"1g", 1 << 30, true}, {"3KB", 3072, true},
		{"", 0, false}, {"0", 0, false}, {"-5", 0, false}, {"ten", 0, false}, {"5T", 0, false},
		{"99999999999G", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q) got %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := splitList(" https://a.example, ,https://b.example,")
	if strings.Join(got, "|") != "https://a.example|https://b.example" {
		t.Errorf("got %q, want the two origins", got)
	}
	if got := splitList(""); got != nil {
		t.Errorf("empty list got %q, want nil", got)
	}
}

func TestServeFlagErrors(t *testing.T) {
	tests := []struct {
		env  [2]string
		args []string
		want string
	}{
		{[2]string{"TUXLB_MAX_REQUESTS", "many"}, nil, "TUXLB_MAX_REQUESTS"},
		{[2]string{"TUXLB_MAX_RUN_TIME", "1 minute"}, nil, "TUXLB_MAX_RUN_TIME"},
		{[2]string{"TUXLB_MAX_BODY", "0"}, nil, "TUXLB_MAX_BODY"},
		{[2]string{"TUXLB_SWEEP_LEASE", "5"}, nil, "TUXLB_SWEEP_LEASE"},
		{[2]string{}, []string{"--sweep-lease", "0s"}, "--sweep-lease: must be a positive duration"},
		{[2]string{}, []string{"--sweep-lease", "1ns"}, "--sweep-lease: must be at least 1s"},
		{[2]string{"TUXLB_SWEEP_LEASE", "999ms"}, nil, "--sweep-lease: must be at least 1s (a replica renews its points every third of it; shorter, they run out under the work and are run again), got 999ms"},
		{[2]string{}, []string{"--max-body", "lots"}, "max-body"},
		{[2]string{}, []string{"--max-requests", "-1"}, "--max-requests: must be a positive number"},
		{[2]string{}, []string{"extra-arg"}, "serve takes flags only"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if tt.env[0] != "" {
				t.Setenv(tt.env[0], tt.env[1])
			}
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"serve"}, tt.args...), nil, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("env %v args %v: exit %d, stderr %q; want 2 mentioning %q", tt.env, tt.args, code, stderr.String(), tt.want)
			}
		})
	}
}

// Each bad setting gets its own message naming it.
func TestServeFlagMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-requests", "0"}, "--max-requests: must be a positive number, got 0"},
		{[]string{"--max-runs", "-2"}, "--max-runs: must be a positive number, got -2"},
		{[]string{"--max-conns", "0"}, "--max-conns: must be a positive number, got 0"},
		{[]string{"--max-run-time", "0s"}, "--max-run-time: must be a positive duration such as 60s, got 0s"},
		{[]string{"--log-format", "xml"}, `--log-format: want text or json, got "xml"`},
		{[]string{"extra"}, `unexpected argument "extra": serve takes flags only`},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(append([]string{"serve"}, tc.args...), nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// --max-body is the limit the server gets (it was once read and dropped).
func TestServeMaxBodyFlag(t *testing.T) {
	fs, o, err := serveFlags(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--max-body", "2K", "--allowed-hosts", "a.example, b.example"}); err != nil {
		t.Fatal(err)
	}
	if o.maxBody != 2048 || o.allowedHosts != "a.example, b.example" {
		t.Errorf("got max body %d, allowed hosts %q; want 2048 and the list", o.maxBody, o.allowedHosts)
	}
	if got := addrHostName("tuxlb.lan:8080"); len(got) != 1 || got[0] != "tuxlb.lan" {
		t.Errorf("addrHostName(tuxlb.lan:8080) = %q, want [tuxlb.lan]", got)
	}
	if got := addrHostName("0.0.0.0:8080"); got != nil {
		t.Errorf("addrHostName(0.0.0.0:8080) = %q, want none", got)
	}
}

// A flood of connections that send one byte each neither exhausts the
// process (at most --max-conns are accepted) nor holds them past the header
// timeout; the server then answers again.
func TestServeSlowClients(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &serveOptions{maxRunTime: time.Second, maxConns: 4,
		timeouts: connTimeouts{header: 300 * time.Millisecond, body: time.Second, idle: time.Second, write: time.Second}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := newHTTPServer(o, h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	count := &countingListener{Listener: ln}
	lim := limitListener(count, o.maxConns)
	srv.ConnState = lim.ConnState
	go srv.Serve(lim)
	defer srv.Close()
	var slow []net.Conn
	for i := 0; i < 12; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("G"))
		slow = append(slow, c)
	}
	// Each new one made room by closing the one that had waited longest;
	// the last four are cut off after the header timeout. Each slow
	// connection ends (EOF or reset) instead of hanging.
	for i, c := range slow {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadAll(c); err != nil && !strings.Contains(err.Error(), "reset") {
			t.Errorf("slow connection %d: %v, want it closed by the server", i, err)
		}
		c.Close()
	}
	if most := count.most(); most > o.maxConns+1 || most == 0 {
		t.Errorf("at most %d connections were open at once, want 1..%d (the cap, and one being accepted)", most, o.maxConns+1)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("after the flood: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("after the flood: got %d, want 200", res.StatusCode)
	}
	if o2 := newHTTPServer(&serveOptions{maxRunTime: time.Minute, timeouts: defaultTimeouts}, h, slog.Default()); o2.ReadTimeout != time.Minute ||
		o2.ReadHeaderTimeout != 5*time.Second || o2.IdleTimeout != 2*time.Minute || o2.WriteTimeout != 3*time.Minute {
		t.Errorf("default timeouts: got %+v", o2)
	}
}

// Slow clients that fill the connection cap do not keep a new client out:
// it is served at once, not after their header timeouts; connections busy
// with a request are never closed to make room.
func TestServeSlowClientsMakeRoom(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &serveOptions{maxRunTime: time.Minute,
		timeouts: connTimeouts{header: time.Minute, body: time.Minute, idle: time.Minute, write: time.Minute}}
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			<-release
		}
		io.WriteString(w, "ok")
	})
	srv := newHTTPServer(o, h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	lim := limitListener(ln, 8)
	srv.ConnState = lim.ConnState
	go srv.Serve(lim)
	defer srv.Close()
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	held := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			res, err := client.Get("http://" + ln.Addr().String() + "/hold")
			if err == nil {
				res.Body.Close()
			}
			held <- err
		}()
	}
	time.Sleep(200 * time.Millisecond)
	var slow []net.Conn
	for i := 0; i < 40; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("GET / HTTP/1.1\r\nHo"))
		slow = append(slow, c)
	}
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	for i := 0; i < 3; i++ {
		res, err := client.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatalf("a client after the slow ones: %v (want it served long before their one-minute header timeout)", err)
		}
		res.Body.Close()
	}
	close(release)
	for i := 0; i < 2; i++ {
		if err := <-held; err != nil {
			t.Errorf("a request in progress was cut to make room: %v", err)
		}
	}
}

// countingListener counts the connections open at once, at the socket.
type countingListener struct {
	net.Listener
	mu         sync.Mutex
	open, peak int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.open++
		l.peak = max(l.peak, l.open)
		l.mu.Unlock()
		c = &countedConn{Conn: c, l: l}
	}
	return c, err
}

func (l *countingListener) most() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peak
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return err
}

// Why `tuxlb serve` keeps its own connection cap rather than
// golang.org/x/net/netutil.LimitListener: with both capping at 4 and four
// clients that opened a connection and sent half a request line, a new
// client is served at once by limitListener (it closes the longest-waiting
// connection), while behind LimitListener it waits until a slot frees —
// here past its 1 s patience, for the one-minute header timeout of the
// slow ones (with kept-alive idle clients it would be the idle timeout, 2
// minutes by default).
func TestServeConnCapVersusLimitListener(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrap   func(net.Listener) (net.Listener, func(net.Conn, http.ConnState))
		served bool
	}{
		{"limitListener", func(l net.Listener) (net.Listener, func(net.Conn, http.ConnState)) {
			lim := limitListener(l, 4)
			return lim, lim.ConnState
		}, true},
		{"netutil.LimitListener", func(l net.Listener) (net.Listener, func(net.Conn, http.ConnState)) {
			return netutil.LimitListener(l, 4), nil
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			o := &serveOptions{maxRunTime: time.Minute,
				timeouts: connTimeouts{header: time.Minute, body: time.Minute, idle: time.Minute, write: time.Minute}}
			srv := newHTTPServer(o, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
				slog.New(slog.NewTextHandler(io.Discard, nil)))
			l, state := tc.wrap(ln)
			srv.ConnState = state
			go srv.Serve(l)
			defer srv.Close()
			for i := 0; i < 4; i++ {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.Write([]byte("GET / HTTP/1.1\r\nHo"))
			}
			time.Sleep(100 * time.Millisecond) // the four are accepted
			client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			res, err := client.Get("http://" + ln.Addr().String() + "/")
			if err == nil {
				res.Body.Close()
			}
			if served := err == nil; served != tc.served {
				t.Errorf("a new client behind four slow ones: served %v (err %v), want served %v", served, err, tc.served)
			}
		})
	}
}

// --pprof serves Go's profiles on a loopback listener of their own, and
// refuses any other address before the server starts.
func TestServePprof(t *testing.T) {
	srv, addr, err := startPprof("127.0.0.1:0", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := (&http.Client{Timeout: 30 * time.Second}).Get("http://" + addr.String() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "goroutine") || !strings.Contains(string(body), "heap") {
		t.Errorf("GET /debug/pprof/: %d %.200s; want 200 listing the goroutine and heap profiles", res.StatusCode, body)
	}
	for _, ok := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:6060", "127.0.0.2:0"} {
		if err := checkPprofAddr(ok); err != nil {
			t.Errorf("checkPprofAddr(%s): %v, want accepted", ok, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:6060", ":6060", "[::]:6060", "192.168.1.10:6060", "example.com:6060", "6060"} {
		if _, _, err := startPprof(bad, slog.Default()); err == nil || !strings.Contains(err.Error(), "--pprof") {
			t.Errorf("startPprof(%s): %v, want refused naming --pprof", bad, err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"serve", "--pprof", "0.0.0.0:6060", "--db", filepath.Join(t.TempDir(), "x.db")}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "not a loopback address") || stdout.Len() != 0 {
		t.Errorf("serve --pprof 0.0.0.0:6060: exit %d, stdout %q, stderr %q; want 2 before listening, saying not a loopback address", code, stdout.String(), stderr.String())
	}
}
