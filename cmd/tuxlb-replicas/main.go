// Command tuxlb-replicas runs several `tuxlb serve` replicas on one
// throwaway PostgreSQL database, to try the shared-storage setup on one
// machine (`go tool task serve-replicas`). It starts a PostgreSQL server in
// a temporary directory on a free 127.0.0.1 port (the system's postgresql
// package; as root it runs as the postgres user), creates the database
// tuxlb, starts the replicas, prints their addresses and waits. Ctrl-C (or
// SIGTERM) stops the replicas, then the database, and removes its directory.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tuxlb/tuxlb/internal/pgtest"
)

func main() {
	bin := flag.String("bin", "bin/tuxlb", "the tuxlb `BINARY` to run")
	n := flag.Int("replicas", 2, "how many replicas to start")
	firstPort := flag.Int("port", 0, "`PORT` of the first replica, the next ones following it; 0: free ports")
	flag.Parse()
	if *n < 1 || *n > 16 || *firstPort < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "tuxlb-replicas: --replicas 1..16, --port >= 0, no arguments")
		os.Exit(2)
	}
	if err := run(*bin, *n, *firstPort); err != nil {
		fmt.Fprintf(os.Stderr, "tuxlb-replicas: %v\n", err)
		os.Exit(1)
	}
}

// run starts the database and the replicas and waits for a signal or for a
// replica to exit.
func run(bin string, n, firstPort int) error {
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%w (build it with `go tool task build`)", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cluster, err := pgtest.Start(ctx)
	if err != nil {
		return err
	}
	defer cluster.Close()
	url, err := cluster.CreateDatabase(ctx, "tuxlb")
	if err != nil {
		return err
	}
	fmt.Printf("PostgreSQL: %s (data in %s)\n", url, cluster.Dir)
	exited := make(chan error, n)
	var replicas []*exec.Cmd
	defer func() { stopAll(replicas) }()
	for i := range n {
		addr := "127.0.0.1:0"
		if firstPort > 0 {
			addr = fmt.Sprintf("127.0.0.1:%d", firstPort+i)
		}
		cmd, where, err := startReplica(bin, addr, url, i+1, exited)
		if err != nil {
			return fmt.Errorf("replica %d: %w", i+1, err)
		}
		replicas = append(replicas, cmd)
		fmt.Printf("replica %d: %s\n", i+1, where)
	}
	fmt.Println("Ctrl-C stops the replicas and the database, and removes its directory.")
	select {
	case <-ctx.Done():
		return nil
	case err := <-exited:
		return fmt.Errorf("a replica exited: %v", err)
	}
}

// startReplica starts one `tuxlb serve` and returns its address once it
// prints it. Its log lines go to standard error prefixed with its number.
func startReplica(bin, addr, url string, num int, exited chan error) (*exec.Cmd, string, error) {
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", url)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	go prefixLines(stderr, fmt.Sprintf("[replica %d] ", num))
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				urls <- strings.TrimSpace(sc.Text()[i:])
			}
		}
		exited <- cmd.Wait()
	}()
	select {
	case where := <-urls:
		return cmd, where, nil
	case err := <-exited:
		return nil, "", fmt.Errorf("exited before listening: %v", err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return nil, "", errors.New("did not say where it listens within 30 s")
	}
}

// prefixLines copies r to standard error line by line with a prefix.
func prefixLines(r io.Reader, prefix string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fmt.Fprintln(os.Stderr, prefix+sc.Text())
	}
}

// stopAll sends SIGTERM to every replica and waits (up to 70 s, a run's
// default time limit and more) for them to finish their requests.
func stopAll(replicas []*exec.Cmd) {
	var wg sync.WaitGroup
	for _, cmd := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd.Process.Signal(syscall.SIGTERM)
			deadline := time.Now().Add(70 * time.Second)
			for cmd.Process.Signal(syscall.Signal(0)) == nil && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
}
