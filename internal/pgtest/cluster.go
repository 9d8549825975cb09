// Package pgtest starts throwaway PostgreSQL servers for tests and for
// `go tool task serve-replicas`: initdb into a temporary directory, then
// postgres on a free 127.0.0.1 port, stopped and removed at the end. It uses
// the server binaries of the system's PostgreSQL package (Debian's
// `postgresql`, found under /usr/lib/postgresql/*/bin or through pg_config).
// PostgreSQL refuses to run as root, so when the caller is root the server
// runs as the `postgres` user the package creates.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries means no PostgreSQL server binaries were found on this machine.
var ErrNoBinaries = errors.New("pgtest: no PostgreSQL server binaries (initdb, postgres): install the postgresql package")

// User is the database superuser every cluster is created with.
const User = "tuxlb"

// BinDir returns the directory holding initdb and postgres: the newest
// /usr/lib/postgresql/N/bin, else what `pg_config --bindir` says, else the
// directory of an initdb on PATH.
func BinDir() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(matches, func(i, j int) bool { return majorOf(matches[i]) > majorOf(matches[j]) })
	for _, m := range matches {
		if isExec(filepath.Join(filepath.Dir(m), "postgres")) {
			return filepath.Dir(m), nil
		}
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && isExec(filepath.Join(filepath.Dir(p), "postgres")) {
		return filepath.Dir(p), nil
	}
	return "", ErrNoBinaries
}

// majorOf reads N out of /usr/lib/postgresql/N/bin/initdb (0 if not a number).
func majorOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// isExec reports whether path is an executable regular file.
func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Cluster is one running (or stopped) PostgreSQL server with its data in a
// temporary directory. Its methods are safe for concurrent use.
type Cluster struct {
	// Port is the TCP port on 127.0.0.1 the server listens on; it stays the
	// same across Stop and Start.
	Port int
	// Dir is the temporary directory: data/ (the cluster), the socket and
	// the server log (postgres.log).
	Dir string

	bin  string
	cred *syscall.Credential // nil: run as the current user

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the running server exits
	dbs  int           // databases made by CreateDatabase, for unique names
}

// Start creates a cluster in a new temporary directory and starts its server
// on a free port. Close stops it and removes the directory.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tempBase(), "tuxlb-pg")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	if err := c.init(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A free port can be taken between choosing it and postgres binding
	// it: try a few.
	for try := 0; ; try++ {
		if c.Port, err = freePort(); err == nil {
			if err = c.Start(ctx); err == nil {
				return c, nil
			}
		}
		if try == 2 || ctx.Err() != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// tempBase is where the cluster's directory goes: the usual temporary
// directory, unless the server runs as another user (the caller is root)
// who could not reach it, or its path is too long for the server's Unix
// socket (about 100 bytes); then /tmp.
func tempBase() string {
	base := os.TempDir()
	if len(base) > 60 || (os.Geteuid() == 0 && !reachableByAll(base)) {
		return "/tmp"
	}
	return base
}

// reachableByAll reports whether every directory from / down to dir may be
// entered by any user.
func reachableByAll(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// init runs initdb, as the postgres user when the caller is root.
func (c *Cluster) init(ctx context.Context) error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("pgtest: running as root, and PostgreSQL refuses to: need the postgres user the postgresql package creates: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(c.Dir, uid, gid); err != nil {
			return fmt.Errorf("pgtest: chown %s to postgres: %w", c.Dir, err)
		}
	}
	cmd := c.command(ctx, "initdb", "-D", c.dataDir(), "-U", User, "--auth=trust", "--no-sync",
		"--encoding=UTF8", "--locale=C", "--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	return nil
}

// command builds a command running one of the PostgreSQL binaries with the
// cluster's credentials and a minimal environment.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.Dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=" + c.Dir, "TZ=UTC"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

func (c *Cluster) dataDir() string { return filepath.Join(c.Dir, "data") }

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start starts the server again after Stop (Start of the package calls it
// the first time) and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil {
		return errors.New("pgtest: server already running")
	}
	logFile, err := os.OpenFile(filepath.Join(c.Dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// Durability is not wanted from a throwaway cluster; speed is.
	cmd := c.command(context.Background(), "postgres", "-D", c.dataDir(), "-p", strconv.Itoa(c.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+c.Dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// If the process that started it dies without stopping it (a test
	// binary killed on timeout), the server shuts down at once.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	// Its own process group: a Ctrl-C at the terminal reaches the program
	// that started it, which stops it after whatever uses it.
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	c.cmd, c.done = cmd, done
	if err := c.waitReady(ctx, done); err != nil {
		cmd.Process.Signal(syscall.SIGQUIT)
		<-done
		c.cmd, c.done = nil, nil
		return err
	}
	return nil
}

// waitReady polls until the server answers a query, exits, or 60 s pass.
func (c *Cluster) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(c.Dir, "postgres.log"))
			return fmt.Errorf("pgtest: postgres exited on port %d:\n%s", c.Port, tail(string(log), 2000))
		case <-ctx.Done():
			return fmt.Errorf("pgtest: postgres not ready on port %d: %w", c.Port, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Stop shuts the server down (fast shutdown: open connections are ended)
// and keeps its data, so that Start brings it back on the same port.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return nil
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Signal(syscall.SIGQUIT)
		<-c.done
	}
	c.cmd, c.done = nil, nil
	return nil
}

// Close stops the server and removes its directory.
func (c *Cluster) Close() error {
	c.Stop()
	return os.RemoveAll(c.Dir)
}

// URL returns the connection URL of database db on this cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", User, c.Port, db)
}

// CreateDatabase creates a new empty database whose name starts with
// prefix and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context, prefix string) (string, error) {
	c.mu.Lock()
	c.dbs++
	name := fmt.Sprintf("%s_%d", sanitize(prefix), c.dbs)
	c.mu.Unlock()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// sanitize turns a test name into a database name: lower-case letters,
// digits and '_', at most 40 characters.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 || (b.String()[0] >= '0' && b.String()[0] <= '9') {
		return "db_" + b.String()
	}
	return b.String()
}
