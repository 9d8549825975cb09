// Package ulog reads the TMTRACE lines of Tuxedo user logs (ULOG files,
// tmtrace(5)) for what a service costs and what it calls: each server
// thread's `{ tpservice(...)` ... `} tpservice` is one execution, its own
// work the time between them less the time spent waiting inside its
// tpcalls and tpgetrplys, and the tpcall, tpacall, tpforward and tpenqueue lines inside
// it are its nested calls. Calls made outside any service (clients) are
// the application's arrivals, counted on the client's host. It is a leaf
// below core: the standard library only; names are mapped to a
// configuration's machines by its caller.
package ulog

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// File is one ULOG file: its name (ULOGPFX.mmddyy gives the date) and
// text, or how to read it.
type File struct {
	Name string
	Text string
	// Open, when set, reads the file instead of Text, as a stream (a file
	// too large to hold: it is read line by line; besides, it is opened
	// for its first line, and to be compared with another file of its day
	// that begins with the same line); Size is then its length in bytes.
	Open func() (io.ReadCloser, error)
	Size int64
}

// Step is one nested call a service makes, in the order the service makes
// them: P is the fraction of executions that make it (a service that calls
// X twice in every execution has two steps of X, each of P 1).
type Step struct {
	Service string // "QSPACE:QNAME" for a tpenqueue
	Mode    string // tpcall, tpacall, tpforward or tpenqueue
	P       float64
	// NoReply is a tpacall with TPNOREPLY (0x4) in its flags: nobody waits
	// for its reply.
	NoReply bool
}

// Service is what the log says of one service.
type Service struct {
	Name       string
	Executions int
	// OwnUS are the executions' own work in microseconds (tpservice's span
	// less its tpcalls and tpgetrplys), in the log's order; empty when the
	// log has whole-second stamps. Timed counts them: past SamplesKept,
	// OwnUS is a uniform sample of SamplesKept of them.
	OwnUS []int64
	Timed int
	// OwnSpans are, for each of OwnUS, how many differences of stamps it
	// sums: 1 for the span, 1 more for each tpcall and tpgetrply it less.
	OwnSpans []int
	Calls    []Step
	// Nested counts the calls to this service made by traced services.
	Nested int
	// Commits counts the tpcommits inside its timed executions (an AUTOTRAN
	// transaction's commit at tpreturn, traced as iatmi, or the service's
	// own tpcommit), and CommitUS sums their spans in microseconds: waiting
	// for the TMS servers, not the service's own work, so OwnUS does not
	// hold them.
	Commits  int
	CommitUS int64
	// Failed counts the calls to this service that returned -1, by the
	// tperrno the closing line names ("TPESVCFAIL"; "-1" when it names
	// none). Those whose request never reached a server (Undelivered) are
	// neither arrivals nor steps; the others ran and are counted.
	Failed map[string]int
	// TPFail counts its executions that ended in tpreturn(TPFAIL).
	TPFail int
	// Conversations counts its executions that sent or received on a
	// connection they did not open (a conversational service, called by
	// tpconnect), and ConvRecvUS their time in tprecv: waiting for the
	// other side, which holds the server and is in OwnUS.
	Conversations int
	ConvRecvUS    int64
}

// Undelivered says whether a call that failed with tperrno never reached a
// server: the request was refused before it was sent (no such service,
// bad arguments, no room, a transaction the service cannot join), so no
// server ran it. TPETIME, TPESVCFAIL, TPESVCERR and the others may have
// run it, and are counted.
func Undelivered(tperrno string) bool {
	switch tperrno {
	case "TPENOENT", "TPEINVAL", "TPELIMIT", "TPEBLOCK", "TPEPROTO", "TPEITYPE", "TPEPERM", "TPETRAN":
		return true
	}
	return false
}

// tperrnos are atmi.h's tperrno values, for a closing line that gives the
// number.
var tperrnos = []string{1: "TPEABORT", "TPEBADDESC", "TPEBLOCK", "TPEINVAL", "TPELIMIT", "TPENOENT", "TPEOS", "TPEPERM",
	"TPEPROTO", "TPESVCERR", "TPESVCFAIL", "TPESYSTEM", "TPETIME", "TPETRAN", "TPGOTSIG", "TPERMERR", "TPEITYPE",
	"TPEOTYPE", "TPERELEASE", "TPEHAZARD", "TPEHEURISTIC", "TPEEVENT", "TPEMATCH", "TPEDIAGNOSTIC", "TPEMIB"}

// Arrival is one request from outside the traced services: a client's call,
// or (for a service no traced client calls) an execution weighted by the
// share of its executions that no traced service called.
type Arrival struct {
	TimeUS        int64 // microseconds since 1970-01-01 (the file's date, else day 0)
	Weight        float64
	Service, Host Name
}

// Span is one timed thing of the log: an execution of Service on Host
// (its tpservice), or a tpcall of Service made from Host; StartUS and EndUS
// are its opening and closing lines' times.
type Span struct {
	StartUS, EndUS int64
	Service, Host  Name
}

// Name is a service's or a host's name in a Log's records (Log.Name gives
// its text): a long log holds millions of them, each a number of four
// bytes where a string's header takes sixteen.
type Name int32

// Name is n's text.
func (lg *Log) Name(n Name) string { return lg.names[n] }

// name numbers s, once.
func (lg *Log) name(s string) Name {
	if n, ok := lg.nameIDs[s]; ok {
		return n
	}
	n := Name(len(lg.names))
	lg.names = append(lg.names, s)
	lg.nameIDs[s] = n
	return n
}

// Server is what one server process name ran on one host: the services it
// executed (tpservice), sorted, whatever its pid.
type Server struct {
	Host, Name string
	Services   []string
}

// Log is what a set of ULOG files says.
type Log struct {
	Services map[string]*Service
	// Arrivals are in time order; a client's tpenqueue is one whose
	// Service names "QSPACE:QNAME". When ArrivalsBinned (a long log, past
	// Options.Keep), each is a minute's requests of a service from a host
	// (TimeUS the minute's start, Weight their sum), and the first and
	// last request's times are ArrivalsFirstUS and ArrivalsLastUS.
	Arrivals                        []Arrival
	ArrivalsBinned                  bool
	ArrivalsFirstUS, ArrivalsLastUS int64
	// Inferred are the services and hosts of the arrivals that are
	// executions no traced process called, weighted by their share.
	Inferred map[[2]Name]bool
	// Forwards counts the calls TMQFORWARD processes made (/Q's forwards:
	// not arrivals, their messages' enqueues were).
	Forwards int
	// Dequeues counts the tpdequeues (a TMQFORWARD's, or an application's):
	// the queue space's executions they caused are neither arrivals nor
	// steps.
	Dequeues int
	// Servers are keyed "host!NAME" (the tag's host and process name).
	Servers map[string]*Server
	// Executions are every finished tpservice, and CallSpans every finished
	// tpcall that is not part of another call, in the order they ended
	// (Latency sorts Executions by service number, then start); both empty when
	// the log has whole-second stamps. KeptOneIn is 1 when they are every
	// one; past Options.Keep, a long log's are those that started in one
	// second in KeptOneIn (the executions: in such a second or the next).
	Executions, CallSpans []Span
	KeptOneIn             int
	Keep                  int // the bound it was read with (Options.Keep)
	// Ignored counts the TRACE lines of another category than at (the
	// application's ATMI calls): ia, tr, xa, iatm..., but for the ia
	// tpcommit lines, which are read (an AUTOTRAN commit).
	Ignored int
	// Millis says every TRACE line has a stamp finer than the second:
	// milliseconds (ULOGMILLISEC=Y), or microseconds. WholeSecondLines
	// counts those that have not: a process's executions and calls are
	// timed when its lines are finer.
	Millis            bool
	WholeSecondLines  int
	Files, Lines      int
	TraceLines        int
	Malformed         int      // TRACE lines that could not be read or did not match
	MalformedExamples []string // up to 5, "FILE:LINE: why"
	Unfinished        int      // executions still open at the end
	FirstUS, LastUS   int64    // the first and last TRACE line's times
	// Gaps are the days, between the first and the last day of the files'
	// names, of which no file has a TRACE line: [start, end) in µs, in
	// order. A day's file not given (or tracing off that day) is no day
	// without requests, so the rates leave those days out of their span.
	Gaps     [][2]int64
	Warnings []string

	inspected int // stack frames the walk looked at (the linearity test's counter)
	// the names of the records (Name), and their numbers
	names   []string
	nameIDs map[string]Name
	// while reading: the days with TRACE lines (the files' names'), and
	// per host; the processes with whole-second stamps
	days       map[int64]bool
	hostDays   map[string]map[int64]bool
	wholeProcs []string
	// events read and not yet walked, and the most at once; the most
	// threads with something open at once
	holding, held, threads int
	cut                    bool // the hold-out window cut the lines: what is open at the end was open at the cut
}

// maxExamples is how many malformed lines are quoted.
const maxExamples = 5

// event is one TRACE line, read (its flags side by side: a file's last
// minute of lines is held, and each padded byte is one a line).
type event struct {
	us     int64
	file   int32
	line   int32
	thread string // host!process.pid.thread
	host   string
	proc   string // the process name
	fn     string // tpservice, tpcall, tpacall, tpforward, tpgetrply or another ATMI function
	svc    string // the service it names (opening lines)
	// fail: a closing line that returned -1, its tperrno ("-1" when the
	// line names none); tpfail: a tpreturn(TPFAIL, ...).
	fail   string
	tpfail bool
	open   bool
	// noreply: a tpacall whose flags have TPNOREPLY.
	noreply bool
	millis  bool
	// ignored: a TRACE line of another category than at.
	ignored bool
}

// Read reads the files, merged by time (a file's lines of one time in
// their order). They are read as streams, line by line, together: what is
// held at once is each file's last minute of lines (reorderUS), the
// threads' open functions and what the log keeps, not the files.
func Read(files []File) (*Log, error) { return ReadBefore(files, 0) }

// ReadBefore reads the files as Read does, keeping only the TRACE lines
// stamped less than beforeUS after the first one (0: every line): the
// first part of a log, to fit a model from while the rest is held out to
// judge it. An execution still open at the cut is not counted (the
// warning of executions open at the end says how many).
func ReadBefore(files []File, beforeUS int64) (*Log, error) { return ReadCut(files, beforeUS, 0) }

// ReadCut reads the files as ReadBefore does, but cuts them at atUS when
// it is above 0 and every file's name gives its day: the lines stamped
// before that instant (µs since 1970, as the lines' own stamps: the day of
// the name and the time of day written, read as UTC) are kept. A file
// without a day in its name has no such instant: the cut is then beforeUS
// after the first line, with a warning.
func ReadCut(files []File, beforeUS, atUS int64) (*Log, error) {
	return ReadWith(files, Options{BeforeUS: beforeUS, AtUS: atUS})
}

// Options say how ReadWith reads.
type Options struct {
	BeforeUS, AtUS int64 // as ReadCut's
	// Keep is how many spans, arrivals and executions' starts the log
	// keeps one by one before a long log's are thinned and counted by
	// minute (keep.go): 0 is DefaultKeep. Samples is how many of each
	// service's times it keeps: 0 is SamplesKept.
	Keep, Samples int
}

// ReadWith reads the files as ReadCut does, with o.
func ReadWith(files []File, o Options) (*Log, error) {
	beforeUS, atUS := o.BeforeUS, o.AtUS
	if len(files) == 0 {
		return nil, fmt.Errorf("ulog: no file")
	}
	lg := &Log{Services: map[string]*Service{}, Servers: map[string]*Server{}, Millis: true, Files: len(files), KeptOneIn: 1,
		Inferred: map[[2]Name]bool{}, days: map[int64]bool{}, hostDays: map[string]map[int64]bool{}, nameIDs: map[string]Name{}}
	given := files
	files, err := lg.once(files)
	if err != nil {
		return nil, err
	}
	undated := false
	someDay, dated := int64(0), false // a file without its day is taken as of the first dated file's
	for _, f := range files {
		if d, ok := fileDay(f.Name); ok && !dated {
			someDay, dated = d, true
		}
	}
	// The files are read together, line by line, their events handed to
	// the walk in time order as they are read: what is held at once is
	// the functions open and what the walk keeps, not the files.
	srcs := make([]*source, len(files))
	intern := map[string]string{}
	for fi, f := range files {
		s := &source{lg: lg, file: f, fi: fi, intern: intern, apart: minHeap[event]{less: before}}
		s.day, s.dated = fileDay(f.Name)
		switch {
		case !s.dated && dated:
			s.day = someDay
			s.warnings = append(s.warnings, fmt.Sprintf("%s: the name does not end in .mmddyy (ULOGPFX.mmddyy): its times are taken as of the other files' day, %s",
				f.Name, time.UnixMicro(someDay).UTC().Format("2006-01-02")))
		case !s.dated:
			undated = true
			s.warnings = append(s.warnings, fmt.Sprintf("%s: the name does not end in .mmddyy (ULOGPFX.mmddyy): its times are taken as of one day", f.Name))
		}
		srcs[fi] = s
	}
	var cutWarnings []string
	if atUS > 0 && undated {
		cutWarnings = append(cutWarnings, fmt.Sprintf("a name without its day: the hold-out cut is %s after the ULOG's first line, not the export's time", time.Duration(beforeUS)*time.Microsecond))
		atUS = 0
	}
	w := newWalker(lg, files, o)
	lg.Keep = w.k.max
	cut, kept := int64(math.MaxInt64), 0
	m := newMerge(srcs)
	for {
		ev, ok := m.next()
		if !ok {
			break
		}
		if kept == 0 && cut == math.MaxInt64 && (beforeUS > 0 || atUS > 0) {
			cut = ev.us + beforeUS
			if atUS > 0 {
				cut = atUS
			}
			if ev.us >= cut {
				// nothing before the cut: most often an export whose clock is
				// not the ULOGs' (UTC beside local time)
				at := func(us int64) string { return time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.000") }
				cutWarnings = append(cutWarnings, fmt.Sprintf("the hold-out cut, %s (the export's first row plus the window, on the ULOGs' wall clock), "+
					"is not after the ULOG's first line, %s: nothing is read before it; the export's clock may not be the ULOGs' "+
					"(give the ULOGs' zone: --ulog-tz, or the option ulog_tz)", at(cut), at(ev.us)))
			}
		}
		if ev.us >= cut {
			lg.cut = true // read on, for the counts of every line
			continue
		}
		if kept == 0 || ev.us < lg.FirstUS {
			lg.FirstUS = ev.us // a line read after later ones (late) may be the first
		}
		lg.LastUS = max(lg.LastUS, ev.us)
		kept++
		w.step(ev)
	}
	// what each file said, in the files' order, then the days
	for _, s := range srcs {
		if s.err != nil {
			return nil, s.err
		}
		lg.Warnings = append(lg.Warnings, s.warnings...)
		if s.traces == 0 && len(files) > 1 {
			lg.Warnings = append(lg.Warnings, fmt.Sprintf("%s: no TRACE lines (was tracing on there?)", s.file.Name))
		}
		if l := s.lateWarning(); l != "" {
			lg.Warnings = append(lg.Warnings, l)
		}
		lg.Malformed += s.malformed.n
		lg.MalformedExamples = append(lg.MalformedExamples, s.malformed.examples...)
	}
	if !undated {
		lg.gaps(lg.days, lg.hostDays)
	}
	if lg.TraceLines == 0 {
		return nil, fmt.Errorf("%s: no TRACE lines: a ULOG written with tracing on (TMTRACE=atmi:ulog, or tmtrace) has lines with \"TRACE:at:\"", Names(given))
	}
	if lg.Malformed == lg.TraceLines {
		return nil, fmt.Errorf("%s: every TRACE line is malformed (%d; the first: %s)", Names(given), lg.Malformed, lg.MalformedExamples[0])
	}
	lg.Warnings = append(lg.Warnings, cutWarnings...)
	switch {
	case lg.WholeSecondLines == kept:
		lg.Warnings = append(lg.Warnings, "whole-second time stamps: set ULOGMILLISEC=Y for service times; only rates and calls are measured")
	case lg.WholeSecondLines > 0:
		// ULOGMILLISEC is each process's environment: the servers' from
		// their ENVFILE, a client's from its shell
		slices.Sort(lg.wholeProcs)
		procs := lg.wholeProcs
		more := ""
		if len(procs) > 5 {
			procs, more = procs[:5], fmt.Sprintf(" and %d more", len(lg.wholeProcs)-5)
		}
		lg.Warnings = append(lg.Warnings, fmt.Sprintf("%d TRACE lines of %d process names (%s%s) have whole-second stamps (no ULOGMILLISEC=Y in their environment): "+
			"their executions give no service times and their calls no latency; the other processes' lines, with milliseconds, are timed",
			lg.WholeSecondLines, len(lg.wholeProcs), strings.Join(procs, ", "), more))
	}
	w.finish()
	lg.Malformed += w.malformed.n
	lg.MalformedExamples = append(lg.MalformedExamples, w.malformed.examples...)
	if len(lg.MalformedExamples) > maxExamples {
		lg.MalformedExamples = lg.MalformedExamples[:maxExamples]
	}
	lg.days, lg.hostDays, lg.wholeProcs = nil, nil, nil
	return lg, nil
}

// dayUS is a day in microseconds, halfHourUS half an hour.
const dayUS, halfHourUS = 86400 * 1e6, 1800 * 1e6

// clock is a time's hh:mm:ss.mmm, for messages.
func clock(us int64) string { return time.UnixMicro(us).UTC().Format("15:04:05.000") }

// gaps finds the days without TRACE lines between the first and last day
// with some (Gaps, with a warning), and warns of a host without TRACE lines
// on a day between its own first and last when other hosts have some.
func (lg *Log) gaps(days map[int64]bool, hostDays map[string]map[int64]bool) {
	if len(days) < 2 {
		return
	}
	first, last := span(days)
	date := func(us int64) string { return time.UnixMicro(us).UTC().Format("01/02/06") }
	var missing []string
	for d := first + dayUS; d < last; d += dayUS {
		if !days[d] {
			if n := len(lg.Gaps); n > 0 && lg.Gaps[n-1][1] == d {
				lg.Gaps[n-1][1] = d + dayUS
			} else {
				lg.Gaps = append(lg.Gaps, [2]int64{d, d + dayUS})
			}
			missing = append(missing, date(d))
		}
	}
	if len(missing) > 0 {
		lg.Warnings = append(lg.Warnings, fmt.Sprintf("no TRACE line on %s, between the files of %s and %s, on any machine: "+
			"a file not given (or tracing off)? Those days are left out of the rates' span, not counted as days without requests "+
			"(if the application was idle then, the rates are those of the days it ran)", list(missing), date(first), date(last)))
	}
	hosts := make([]string, 0, len(hostDays))
	for h := range hostDays {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	for _, h := range hosts {
		hd := hostDays[h]
		f, l := span(hd)
		var lack []string
		for d := f + dayUS; d < l; d += dayUS {
			if days[d] && !hd[d] {
				lack = append(lack, date(d))
			}
		}
		if len(lack) > 0 {
			lg.Warnings = append(lg.Warnings, fmt.Sprintf("%s: no TRACE line on %s, when other machines have some: its ULOG of that day not given? "+
				"What it ran and called then is missing from the fit (its services' samples, and the arrivals counted from them)", h, list(lack)))
		}
	}
}

// span is the first and last of a set of days.
func span(days map[int64]bool) (first, last int64) {
	first, last = math.MaxInt64, math.MinInt64
	for d := range days {
		first, last = min(first, d), max(last, d)
	}
	return first, last
}

// list is up to five items, then how many more.
func list(items []string) string {
	if len(items) > 5 {
		return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more days", len(items)-5)
	}
	return strings.Join(items, ", ")
}

// once drops the files given twice: one of the same day (by its name) as
// another whose text is the other's, or the start of it (a copy taken
// earlier in the day), is read once, as the longer, with a warning (files
// of two days may hold the same text: their lines give times of day). Read twice, every line of it counted twice:
// a machine's executions and rates doubled, and what its lines opened
// closed by their copies.
func (lg *Log) once(files []File) ([]File, error) {
	drop := make([]bool, len(files))
	days := make([]int64, len(files))
	heads := make([]string, len(files))
	for i, f := range files {
		days[i], _ = fileDay(f.Name) // 0 without a day: such files are of one day
		if len(files) > 1 {
			h, err := f.firstLine()
			if err != nil {
				return nil, err
			}
			heads[i] = h
		}
	}
	// the longest first: the copies are named beside the file read
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmpUS(files[y].size(), files[x].size()) })
	for oi, i := range order {
		for _, j := range order[oi+1:] {
			// is b a copy of a, or of its start?
			a, b := files[i], files[j]
			if drop[i] || drop[j] || days[i] != days[j] || b.size() == 0 || heads[i] != heads[j] {
				continue
			}
			rel, err := startOf(a, b)
			if err != nil {
				return nil, err
			}
			if rel < 0 {
				continue
			}
			what := "the same text as"
			if rel > 0 {
				what = "the start of" // a copy taken earlier
			}
			if rel == 2 {
				// a's is the start of b's, though b's size said no more (a
				// gzipped file of members joined gives its last member's)
				a, b = b, a
				drop[i] = true
			} else {
				drop[j] = true
			}
			lg.Warnings = append(lg.Warnings, fmt.Sprintf("%s: %s %s: read once (a file given twice would count its lines twice)", b.Name, what, a.Name))
		}
	}
	out := files[:0:0]
	for i, f := range files {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out, nil
}

// Names is the files' names, for a message about them all: every name of
// up to five files, else the first three and how many more, so that a
// message about hundreds of files (a node's ULOG of every day) keeps what
// it says of them after the names.
func Names(files []File) string {
	shown := files
	if len(files) > 5 {
		shown = files[:3]
	}
	out := make([]string, len(shown))
	for i, f := range shown {
		out[i] = f.Name
	}
	s := strings.Join(out, ", ")
	if len(shown) < len(files) {
		s += fmt.Sprintf(" and %d more files", len(files)-len(shown))
	}
	return s
}

func base(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		return name[i+1:]
	}
	return name
}

// fileDay is the start of the day a ULOG's name gives (ULOGPFX.mmddyy, or
// ULOGPFX.mmddyy.gz), in microseconds since 1970; years 00-69 are 20xx,
// 70-99 19xx.
func fileDay(name string) (int64, bool) {
	name = strings.TrimSuffix(base(name), ".gz") // a day's file rotated and gzipped
	i := strings.LastIndexByte(name, '.')
	s := name[i+1:]
	if i < 0 || len(s) != 6 || !digits(s) {
		return 0, false
	}
	mm, _ := strconv.Atoi(s[0:2])
	dd, _ := strconv.Atoi(s[2:4])
	yy, _ := strconv.Atoi(s[4:6])
	if mm < 1 || mm > 12 || dd < 1 || dd > 31 {
		return 0, false
	}
	year := 2000 + yy
	if yy >= 70 {
		year = 1900 + yy
	}
	t := time.Date(year, time.Month(mm), dd, 0, 0, 0, 0, time.UTC)
	if t.Day() != dd {
		return 0, false
	}
	return t.Unix() * 1e6, true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseLine reads a line holding "TRACE:" at index at: its tag
// `hhmmss[.mmm|.uuuuuu].host!process.pid.thread.context:`, an optional
// `gtrid ...:`, then `TRACE:cat: { fn(args)` or `TRACE:cat: } fn [= ret]`.
// It returns why the line is malformed, "" when it is not; an event without
// fn is a TRACE line of no interest.
func parseLine(line string, at int) (event, string) {
	var ev event
	body := line[at+len("TRACE:"):]
	i := strings.IndexByte(body, ':')
	if i < 0 || i > 8 {
		return ev, "TRACE without a category (TRACE:at:)"
	}
	cat := body[:i]
	if cat != "at" && (cat != "ia" || !strings.Contains(body, "tpcommit")) {
		// ia (the ATMI calls Tuxedo makes itself, inside the application's),
		// tr, xa, iatm...: never the application's calls. But for an ia
		// tpcommit: the commit Tuxedo makes at tpreturn for an AUTOTRAN
		// transaction, whose time is not the service's own work.
		ev.ignored = true
		return ev, ""
	}
	body = body[i+1:]
	colon := strings.Index(line, ": ")
	if colon < 0 || colon > at {
		return ev, "no ULOG tag (hhmmss.host!process.pid.thread.context:) before TRACE"
	}
	tag := line[:colon]
	if len(tag) < 8 || !digits(tag[:6]) || tag[6] != '.' {
		return ev, fmt.Sprintf("tag %q: want hhmmss[.mmm].host!...", cut(tag))
	}
	hh, _ := strconv.Atoi(tag[0:2])
	mi, _ := strconv.Atoi(tag[2:4])
	ss, _ := strconv.Atoi(tag[4:6])
	if hh > 23 || mi > 59 || ss > 60 {
		return ev, fmt.Sprintf("time %q out of range", tag[:6])
	}
	ev.us = (int64(hh)*3600 + int64(mi)*60 + int64(ss)) * 1e6
	rest := tag[7:]
	// the fraction of a second: three digits, milliseconds
	// (ULOGMILLISEC=Y), or six, microseconds
	for _, n := range []int{3, 6} {
		if len(rest) > n+1 && digits(rest[:n]) && rest[n] == '.' {
			f, _ := strconv.Atoi(rest[:n])
			if n == 3 {
				f *= 1000
			}
			ev.us += int64(f)
			ev.millis = true
			rest = rest[n+1:]
			break
		}
	}
	host, proc, ok := strings.Cut(rest, "!")
	if !ok || host == "" {
		return ev, fmt.Sprintf("tag %q: no host!process", cut(tag))
	}
	// proc is process.pid.thread.context (the process's name may hold
	// dots): cut from the right, as pieces of the line (no copies)
	c := strings.LastIndexByte(proc, '.')
	t := -1
	if c > 0 {
		t = strings.LastIndexByte(proc[:c], '.')
	}
	p := -1
	if t > 0 {
		p = strings.LastIndexByte(proc[:t], '.')
	}
	if p < 0 || !digits(proc[p+1:t]) {
		return ev, fmt.Sprintf("tag %q: want process.pid.thread.context after the host", cut(tag))
	}
	ev.host = host
	ev.proc = proc[:p]
	ev.thread = rest[:len(host)+1+c] // host!process.pid.thread
	body = strings.TrimSpace(body)
	if len(body) < 3 || (body[0] != '{' && body[0] != '}') {
		return ev, fmt.Sprintf("%q: want { function(...) or } function", cut(body))
	}
	ev.open = body[0] == '{'
	body = strings.TrimSpace(body[1:])
	end := strings.IndexAny(body, "( =")
	if end < 0 {
		end = len(body)
	}
	fn := body[:end]
	switch {
	case cat == "ia" && fn != "tpcommit":
		ev.ignored = true
		return ev, ""
	case fn == "tpservice", fn == "tpcall", fn == "tpacall", fn == "tpforward", fn == "tpgetrply", fn == "tpenqueue", fn == "tpdequeue", fn == "tpcommit",
		fn == "tpconnect", fn == "tpsend", fn == "tprecv":
	case fn == "tpreturn" && ev.open:
		// tpreturn(rval, rcode, data, len, flags): TPFAIL is 0x1
		rval, _, _ := strings.Cut(strings.TrimPrefix(body[end:], "("), ",")
		rval = strings.TrimSpace(rval)
		ev.fn, ev.tpfail = fn, rval == "TPFAIL" || rval == "1" || rval == "0x1" || rval == "0x00000001"
		return ev, ""
	case fn == "tpcancel" && ev.open:
		// tpcancel(cd): the reply of the tpacall that returned cd is not
		// waited for
		cd, _, _ := strings.Cut(strings.TrimPrefix(body[end:], "("), ")")
		ev.fn, ev.svc = fn, strings.TrimSpace(cd)
		return ev, ""
	default:
		return ev, "" // another function: not needed
	}
	ev.fn = fn
	if !ev.open {
		ev.fail = failure(body[end:])
		if fn == "tpacall" && ev.fail == "" {
			// `} tpacall = 3`: its call descriptor, for a tpcancel
			v, _ := strings.CutPrefix(strings.TrimSpace(body[end:]), "=")
			v, _, _ = strings.Cut(strings.TrimSpace(v), " ")
			ev.svc = v
		}
		return ev, ""
	}
	if fn == "tpgetrply" || fn == "tpcommit" || fn == "tpsend" || fn == "tprecv" {
		return ev, ""
	}
	args := body[end:]
	if !strings.HasPrefix(args, "(") {
		return ev, fmt.Sprintf("%s: want %s(...)", fn, fn)
	}
	q := strings.IndexByte(args, '"')
	if q < 0 {
		return ev, fmt.Sprintf("%s: no quoted service name", fn)
	}
	e := strings.IndexByte(args[q+1:], '"')
	if e <= 0 {
		return ev, fmt.Sprintf("%s: the service name is not closed", fn)
	}
	ev.svc = args[q+1 : q+1+e]
	if fn == "tpenqueue" || fn == "tpdequeue" {
		// tpenqueue(qspace, qname, ctl, data, len, flags): the call names
		// "QSPACE:QNAME", as a scenario's enqueue does
		rest := args[q+2+e:]
		q2 := strings.IndexByte(rest, '"')
		e2 := -1
		if q2 >= 0 {
			e2 = strings.IndexByte(rest[q2+1:], '"')
		}
		if e2 <= 0 {
			return ev, fmt.Sprintf("%s: want the queue space and the queue name, quoted", fn)
		}
		ev.svc += ":" + rest[q2+1:q2+1+e2]
	}
	if fn == "tpacall" {
		// tpacall(svc, data, len, flags): the flags are the third argument
		// after the name.
		rest := strings.TrimSuffix(strings.TrimSpace(args[q+2+e:]), ")")
		if f := strings.Split(rest, ","); len(f) >= 4 {
			ev.noreply = noReply(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f[3]), ")")))
		}
	}
	return ev, ""
}

// failure reads what follows a closing line's function name, ` = -1
// [tperrno TPESVCFAIL]`: the tperrno when the call returned -1 ("-1" when
// the line names none), else "".
func failure(ret string) string {
	ret = strings.TrimSpace(ret)
	v, ok := strings.CutPrefix(ret, "=")
	if !ok {
		return ""
	}
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "-1") || len(v) > 2 && v[2] >= '0' && v[2] <= '9' {
		return ""
	}
	if i := strings.Index(v, "TPE"); i >= 0 {
		j := i + 3
		for j < len(v) && v[j] >= 'A' && v[j] <= 'Z' {
			j++
		}
		if j > i+3 {
			return v[i:j]
		}
	}
	if i := strings.Index(strings.ToLower(v), "tperrno"); i >= 0 {
		n := strings.TrimLeft(v[i+len("tperrno"):], " =:")
		k := 0
		for k < len(n) && n[k] >= '0' && n[k] <= '9' {
			k++
		}
		if d, err := strconv.Atoi(n[:k]); err == nil && d > 0 && d < len(tperrnos) {
			return tperrnos[d]
		}
	}
	return "-1"
}

// tpNoReply is TPNOREPLY in atmi.h.
const tpNoReply = 0x4

// noReply says whether tpacall flags written as the log writes them
// (decimal, 0x hexadecimal, or symbolic TPNOREPLY|TPNOTRAN) have TPNOREPLY.
func noReply(flags string) bool {
	if strings.Contains(strings.ToUpper(flags), "TPNOREPLY") {
		return true
	}
	var v uint64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(flags), "0x"); ok {
		v, err = strconv.ParseUint(h, 16, 64)
	} else {
		v, err = strconv.ParseUint(flags, 10, 64)
	}
	return err == nil && v&tpNoReply != 0
}

// cut shortens what a message quotes.
func cut(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// frame is an open function of one thread. Each frame also keeps, for the
// stack up to it, the indexes the walk needs at once, so that an event costs
// the same whatever the stack's depth: the innermost open tpservice, the
// innermost open call, the topmost frame that is neither a tpacall nor a
// tpforward (those may have no close of their own), and the innermost
// tpacall and tpforward (-1: none).
type frame struct {
	fn      string
	svc     string
	startUS int64
	waitUS  int64 // a service's time inside its tpcalls and tpgetrplys
	waits   int   // how many of them
	// a service's tpcommits and their spans (counted in waitUS too)
	commits  int
	commitUS int64
	calls    []callKey // a service's calls, in order
	nested   bool      // opened inside an open call: part of that call
	millis   bool      // its opening line's stamp is finer than the second
	// what a call counted at its opening line, to take back when it closes
	// with a tperrno of a request that never reached a server: its step
	// (calls[step] of the service at svcAt), its arrival (Arrivals[arrival]),
	// or a TMQFORWARD's forward; -1 for none.
	step, arrival int
	forward, self bool
	tpfail        bool // a service's tpreturn(TPFAIL)
	// a service's conversations: connected, it opened one (tpconnect), so
	// its tprecvs wait for the service it called; conv, it sent or
	// received on one it did not open (it is conversational), recvUS its
	// time in tprecv.
	connected, conv bool
	recvUS          int64
	// cds are a service's tpacall steps by the call descriptor each
	// returned, for a tpcancel
	cds map[string]int

	svcAt, callAt, solidAt, acallAt, fwdAt int
}

// callKey is one kind of call a service makes.
type callKey struct {
	svc, mode string
	noreply   bool
}

// tally gathers one service's executions' calls.
type tally struct {
	// occ[call][i]: executions that made at least i+1 such calls;
	// pos: the sum of those calls' positions, for the order.
	occ   map[callKey][]int
	pos   map[callKey][]int
	execs int
	hosts map[string]int // executions per serving host
	start []startAt      // executions' start times and hosts
	// the minutes' counts in start (once the log's arrivals are binned);
	// the first and last start
	bins            map[binKey]int32
	firstUS, lastUS int64
}

// startAt is an execution's start, or n of them in a minute (binned).
type startAt struct {
	us   int64
	host Name
	n    int32
}

func isCall(fn string) bool {
	return fn == "tpcall" || fn == "tpacall" || fn == "tpforward" || fn == "tpenqueue" || fn == "tpdequeue" || fn == "tpconnect"
}

// forwarder says whether process proc is a TMQFORWARD: its calls are /Q's
// forwards of messages enqueued, not arrivals.
func forwarder(proc string) bool { return proc[strings.LastIndexByte(proc, '/')+1:] == "TMQFORWARD" }

// push opens ev's function on the stack st; inspected counts the frames
// looked at.
func push(st []*frame, ev event, inspected *int) []*frame {
	i := len(st)
	f := &frame{fn: ev.fn, svc: ev.svc, startUS: ev.us, millis: ev.millis, svcAt: -1, callAt: -1, solidAt: -1, acallAt: -1, fwdAt: -1, step: -1, arrival: -1}
	if i > 0 {
		p := st[i-1]
		*inspected++
		f.svcAt, f.callAt, f.solidAt, f.acallAt, f.fwdAt = p.svcAt, p.callAt, p.solidAt, p.acallAt, p.fwdAt
		f.nested = p.callAt >= 0
	}
	switch ev.fn {
	case "tpservice":
		f.svcAt, f.callAt = i, -1
	case "tpacall":
		f.acallAt = i
	case "tpforward":
		f.fwdAt = i
	}
	if isCall(ev.fn) && f.callAt < 0 {
		f.callAt = i
	}
	if ev.fn != "tpacall" && ev.fn != "tpforward" {
		f.solidAt = i
	}
	return append(st, f)
}

// closes finds the frame a closing line of fn closes on st: the topmost
// frame, past tpforwards and tpacalls whose own close the log does not have
// (they ended with their caller); -1 when there is none.
func closes(st []*frame, fn string, inspected *int) int {
	if len(st) == 0 {
		return -1
	}
	top := st[len(st)-1]
	*inspected++
	c := top.solidAt
	switch fn {
	case "tpacall":
		c = top.acallAt
	case "tpforward":
		c = top.fwdAt
	}
	if c < 0 || c < top.solidAt || st[c].fn != fn {
		return -1
	}
	return c
}

// walker takes a log's events in time order, one at a time: each thread's
// open functions, and what the executions and calls that end add up to.
type walker struct {
	lg      *Log
	files   []File
	stacks  map[string]*[]*frame // the threads' open functions
	tallies map[string]*tally
	// calls by clients, of services to themselves, by TMQFORWARD
	// processes, and tpdequeues (by queue space), by service
	clientCalls, selfCalls, forwards, dequeues map[string]int
	undelivered                                int // arrivals taken back
	staleCalls, staleExecs                     int // functions open at a missing day, dropped
	// the days a file's name gives, per file; per host, the latest day of
	// its lines, and the days it has none between its first and that one
	fileDay   []int64
	dated     []bool
	lastDay   map[string]int64
	hostGaps  map[string][][2]int64
	malformed malformedLines // the lines whose } closes nothing
	k         keeper
}

func newWalker(lg *Log, files []File, o Options) *walker {
	w := &walker{lg: lg, files: files, stacks: map[string]*[]*frame{}, tallies: map[string]*tally{}, k: newKeeper(o),
		clientCalls: map[string]int{}, selfCalls: map[string]int{}, forwards: map[string]int{}, dequeues: map[string]int{},
		fileDay: make([]int64, len(files)), dated: make([]bool, len(files)), lastDay: map[string]int64{}, hostGaps: map[string][][2]int64{}}
	for i, f := range files {
		w.fileDay[i], w.dated[i] = fileDay(f.Name)
	}
	return w
}

func (w *walker) svc(name string) *Service {
	s := w.lg.Services[name]
	if s == nil {
		s = &Service{Name: name}
		w.lg.Services[name] = s
	}
	return s
}

// missed says whether the host has a day without lines (its file not
// given) between from and to.
func (w *walker) missed(host string, from, to int64) bool {
	for _, g := range w.hostGaps[host] {
		if from < g[0] && g[1] <= to {
			return true
		}
	}
	return false
}

// step walks one event.
func (w *walker) step(ev event) {
	lg := w.lg
	if w.dated[ev.file] {
		// a day of the host's without lines before this one: found as
		// the events reach past it
		d := w.fileDay[ev.file]
		last, seen := w.lastDay[ev.host]
		for g := last + dayUS; seen && g < d; g += dayUS {
			w.hostGaps[ev.host] = append(w.hostGaps[ev.host], [2]int64{g, g + dayUS})
		}
		if !seen || d > last {
			w.lastDay[ev.host] = d
		}
	}
	// a thread's stack is held while something is open on it (a log of
	// clients started for each request has as many threads as requests)
	sp := w.stacks[ev.thread]
	var st []*frame
	if sp != nil {
		st = *sp
	}
	if len(st) > 0 && len(w.hostGaps[ev.host]) > 0 && w.missed(ev.host, st[0].startUS, ev.us) {
		// open before a missing day: its close was in the day's
		// file. Kept, it would make every later call of the thread
		// part of it (and the thread's next close its own).
		for _, f := range st {
			if f.fn == "tpservice" {
				w.staleExecs++
			} else if isCall(f.fn) && !f.nested {
				w.staleCalls++
			}
		}
		st, sp = nil, nil
		delete(w.stacks, ev.thread)
	}
	if ev.fn == "tpreturn" {
		// no close of its own: it marks the execution it ends
		if len(st) > 0 && st[len(st)-1].svcAt >= 0 && ev.tpfail {
			st[st[len(st)-1].svcAt].tpfail = true
		}
		return
	}
	if ev.fn == "tpcancel" {
		// the tpacall of that descriptor is a step nobody waits for
		if len(st) > 0 && st[len(st)-1].svcAt >= 0 {
			sv := st[st[len(st)-1].svcAt]
			if i, ok := sv.cds[ev.svc]; ok {
				sv.calls[i].noreply = true
				delete(sv.cds, ev.svc)
			}
		}
		return
	}
	if ev.open {
		st = push(st, ev, &lg.inspected)
		if sp == nil {
			sp = new([]*frame)
			w.stacks[strings.Clone(ev.thread)] = sp // the event's is a piece of its line
			lg.threads = max(lg.threads, len(w.stacks))
		}
		*sp = st
		f := st[len(st)-1]
		if isCall(ev.fn) && !f.nested {
			// the service a call runs: a tpenqueue's is its queue space's
			// (the TMQUEUE's service), the call naming QSPACE:QNAME
			callee, _, _ := strings.Cut(ev.svc, ":")
			if ev.fn != "tpenqueue" && ev.fn != "tpdequeue" {
				callee = ev.svc
			}
			switch {
			case ev.fn == "tpdequeue":
				// a message taken off a queue (a TMQFORWARD's, before it
				// forwards it): no request of the application
				w.svc(callee)
				w.dequeues[callee]++
				lg.Dequeues++
			case f.svcAt >= 0 && st[f.svcAt].svc == callee && ev.fn != "tpenqueue":
				// a service calling itself: a scenario's calls form
				// no cycle, so the call is an arrival of the service,
				// from the caller's machine (its time is still taken
				// off the caller's own work)
				w.selfCalls[callee]++
				f.arrival, f.self = w.arrive(ev.us, ev.svc, ev.host), true
			case f.svcAt >= 0:
				mode := ev.fn
				if mode == "tpconnect" {
					// the caller is held through the conversation, as
					// through a tpcall: it is played as one
					mode = "tpcall"
					st[f.svcAt].connected = true
				}
				f.step = len(st[f.svcAt].calls)
				st[f.svcAt].calls = append(st[f.svcAt].calls, callKey{ev.svc, mode, ev.noreply})
				w.svc(callee).Nested++
			case forwarder(ev.proc):
				// a /Q forward: its message's enqueue was the arrival
				w.svc(callee)
				w.forwards[callee]++
				lg.Forwards++
				f.forward = true
			default:
				w.svc(callee)
				w.clientCalls[callee]++
				f.arrival = w.arrive(ev.us, ev.svc, ev.host)
			}
		}
		return
	}
	c := closes(st, ev.fn, &lg.inspected)
	if c < 0 {
		want := "nothing open"
		if len(st) > 0 {
			want = "{ " + st[len(st)-1].fn + " open"
		}
		w.malformed.add(w.files[ev.file].Name, int(ev.line), fmt.Sprintf("} %s closes nothing on %s (%s)", ev.fn, ev.thread, want))
		return
	}
	w.ended(ev, st, st[c])
	// the frames from c up are closed
	clear(st[c:])
	if c == 0 {
		delete(w.stacks, ev.thread)
	} else {
		*sp = st[:c]
	}
}

// ended counts what the frame f of the thread's stack st, closed by ev,
// adds up to.
func (w *walker) ended(ev event, st []*frame, f *frame) {
	lg := w.lg
	dur := ev.us - f.startUS
	if f.fn == "tpacall" && f.step >= 0 && ev.svc != "" {
		sv := st[f.svcAt]
		if sv.cds == nil {
			sv.cds = map[string]int{}
		}
		sv.cds[ev.svc] = f.step
	}
	if ev.fail != "" && isCall(f.fn) && !f.nested {
		callee, _, _ := strings.Cut(f.svc, ":")
		if f.fn != "tpenqueue" && f.fn != "tpdequeue" {
			callee = f.svc
		}
		s := w.svc(callee)
		if s.Failed == nil {
			s.Failed = map[string]int{}
		}
		s.Failed[ev.fail]++
		if Undelivered(ev.fail) {
			// no server ran it: neither a step nor an arrival
			switch {
			case f.step >= 0:
				st[f.svcAt].calls[f.step] = callKey{}
				s.Nested--
			case f.forward:
				w.forwards[callee]--
				lg.Forwards--
			case f.arrival >= 0:
				lg.Arrivals[f.arrival].Weight-- // (1 to 0; a minute's count, one less)
				if f.self {
					w.selfCalls[callee]--
				} else {
					w.clientCalls[callee]--
				}
				w.undelivered++
			}
		}
	}
	switch f.fn {
	case "tpsend", "tprecv":
		switch {
		case f.nested || f.svcAt < 0:
		case st[f.svcAt].connected:
			// a conversation it opened: a tprecv waits for the
			// service it called, as a tpcall does
			if f.fn == "tprecv" {
				st[f.svcAt].waitUS += dur
				st[f.svcAt].waits++
			}
		default:
			// its own caller's conversation: it holds the server
			st[f.svcAt].conv = true
			if f.fn == "tprecv" {
				st[f.svcAt].recvUS += dur
			}
		}
	case "tpcall", "tpgetrply", "tpenqueue", "tpdequeue", "tpcommit", "tpconnect":
		if f.nested {
			break // its time is its call's
		}
		if f.svcAt >= 0 {
			st[f.svcAt].waitUS += dur
			st[f.svcAt].waits++
			if f.fn == "tpcommit" {
				st[f.svcAt].commits++
				st[f.svcAt].commitUS += dur
			}
		}
		if f.fn == "tpcall" && f.millis && ev.millis && (ev.fail == "" || ev.fail == "TPESVCFAIL" || ev.fail == "TPESVCERR") {
			// a call that timed out or was refused did not wait for
			// its execution's reply: no span of a request
			w.span(&lg.CallSpans, Span{Service: lg.name(f.svc), Host: lg.name(ev.host), StartUS: f.startUS, EndUS: ev.us}, false)
		}
	case "tpservice":
		s := w.svc(f.svc)
		s.Executions++
		if f.tpfail {
			s.TPFail++
		}
		if f.conv {
			s.Conversations++
			s.ConvRecvUS += f.recvUS
		}
		if f.millis && ev.millis {
			w.timed(s, max(dur-f.waitUS, 0), 1+f.waits)
			s.Commits += f.commits
			s.CommitUS += f.commitUS
			w.span(&lg.Executions, Span{Service: lg.name(f.svc), Host: lg.name(ev.host), StartUS: f.startUS, EndUS: ev.us}, true)
		}
		key := ev.host + "!" + ev.proc
		sv := lg.Servers[key]
		if sv == nil {
			sv = &Server{Host: ev.host, Name: ev.proc}
			lg.Servers[key] = sv
		}
		if i, found := slices.BinarySearch(sv.Services, f.svc); !found {
			sv.Services = slices.Insert(sv.Services, i, f.svc)
		}
		t := w.tallies[f.svc]
		if t == nil {
			t = &tally{occ: map[callKey][]int{}, pos: map[callKey][]int{}, hosts: map[string]int{}, firstUS: math.MaxInt64, lastUS: math.MinInt64}
			w.tallies[f.svc] = t
		}
		t.execs++
		t.hosts[ev.host]++
		w.started(t, f.startUS, lg.name(ev.host))
		seen := map[callKey]int{}
		p := -1
		for _, c := range f.calls {
			if c.svc == "" {
				continue // a call that never reached a server
			}
			p++
			i := seen[c]
			seen[c]++
			if len(t.occ[c]) <= i {
				t.occ[c] = append(t.occ[c], 0)
				t.pos[c] = append(t.pos[c], 0)
			}
			t.occ[c][i]++
			t.pos[c][i] += p
		}
	}
}

// malformedLines counts malformed lines and quotes the first few.
type malformedLines struct {
	n        int
	examples []string // up to maxExamples, "FILE:LINE: why"
}

func (m *malformedLines) add(file string, line int, why string) {
	m.n++
	if len(m.examples) < maxExamples {
		m.examples = append(m.examples, fmt.Sprintf("%s:%d: %s", file, line, why))
	}
}

// finish counts what is still open and adds up the services' calls.
func (w *walker) finish() {
	lg := w.lg
	for _, sp := range w.stacks {
		for _, f := range *sp {
			if f.fn == "tpservice" {
				lg.Unfinished++
			}
		}
	}
	if w.staleExecs+w.staleCalls > 0 {
		lg.Warnings = append(lg.Warnings, fmt.Sprintf("%d executions and %d calls open before a missing day are not counted (their ends were in its file)", w.staleExecs, w.staleCalls))
	}
	if lg.Unfinished > 0 {
		end := "the end of the log"
		if lg.cut {
			end = "the cut (where the judged rows start)"
		}
		lg.Warnings = append(lg.Warnings, fmt.Sprintf("%d executions still open at %s are not counted", lg.Unfinished, end))
	}
	names := make([]string, 0, len(w.tallies))
	for n := range w.tallies {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t, s := w.tallies[name], lg.Services[name]
		s.Calls = t.steps()
		ext := t.execs - s.Nested - w.clientCalls[name] - w.forwards[name] - w.dequeues[name] - w.selfCalls[name]
		if n := w.selfCalls[name]; n > 0 {
			lg.Warnings = append(lg.Warnings, fmt.Sprintf("%s: calls itself (%d calls in its %d executions): a scenario's calls form no cycle, "+
				"so those calls are counted as arrivals of %s from the caller's machine, not as steps: its executions' number is kept, "+
				"but the calling execution's response no longer waits for the one it called", name, n, t.execs, name))
		}
		// No traced process called them: the executions came from outside
		// (untraced clients, workstation clients through a WSH, whose calls
		// Tuxedo makes itself), from where they were served. Beside traced
		// clients' calls, a few are the log's edges (a call before its first
		// line): 1% of the executions, at least 2, are let go.
		if ext > 0 && (w.clientCalls[name] == 0 || ext*100 > t.execs && ext > 2) {
			wt := float64(ext) / float64(t.execs)
			for _, a := range t.start {
				lg.Arrivals = append(lg.Arrivals, Arrival{TimeUS: a.us, Service: lg.name(name), Host: a.host, Weight: wt * float64(a.n)})
				if wt < 1 {
					lg.Inferred[[2]Name{lg.name(name), a.host}] = true
				}
			}
			if lg.ArrivalsBinned {
				lg.ArrivalsFirstUS, lg.ArrivalsLastUS = min(lg.ArrivalsFirstUS, t.firstUS), max(lg.ArrivalsLastUS, t.lastUS)
			}
			switch {
			case w.clientCalls[name] > 0:
				lg.Warnings = append(lg.Warnings, fmt.Sprintf("%s: %d of its %d executions were called by no traced process, beside %d calls of traced clients "+
					"(workstation clients through a WSH, or clients without TMTRACE): counted as arrivals at the machines that served them", name, ext, t.execs, w.clientCalls[name]))
			case s.Nested > 0:
				lg.Warnings = append(lg.Warnings, fmt.Sprintf("%s: %d of its %d executions were not called by a traced process: counted as arrivals at the machines that served them", name, ext, t.execs))
			}
		}
	}
	if w.undelivered > 0 {
		lg.Arrivals = slices.DeleteFunc(lg.Arrivals, func(a Arrival) bool { return a.Weight == 0 })
	}
	slices.SortStableFunc(lg.Arrivals, func(a, b Arrival) int {
		switch {
		case a.TimeUS < b.TimeUS:
			return -1
		case a.TimeUS > b.TimeUS:
			return 1
		}
		return strings.Compare(lg.names[a.Service], lg.names[b.Service])
	})
}

// steps lists the calls of a service's executions, each occurrence a step
// with the fraction of executions that made it, ordered by their mean
// position within an execution (then by name and mode).
func (t *tally) steps() []Step {
	type keyed struct {
		s   Step
		pos float64
		occ int
	}
	var out []keyed
	for c, occ := range t.occ {
		for i, n := range occ {
			out = append(out, keyed{Step{Service: c.svc, Mode: c.mode, P: float64(n) / float64(t.execs), NoReply: c.noreply},
				float64(t.pos[c][i]) / float64(n), i})
		}
	}
	slices.SortStableFunc(out, func(a, b keyed) int {
		switch {
		case a.pos < b.pos:
			return -1
		case a.pos > b.pos:
			return 1
		}
		if c := strings.Compare(a.s.Service, b.s.Service); c != 0 {
			return c
		}
		if c := strings.Compare(a.s.Mode, b.s.Mode); c != 0 {
			return c
		}
		if a.s.NoReply != b.s.NoReply {
			if a.s.NoReply {
				return 1
			}
			return -1
		}
		return a.occ - b.occ
	})
	steps := make([]Step, len(out))
	for i, k := range out {
		steps[i] = k.s
	}
	return steps
}

// cmpUS compares two times.
func cmpUS(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
