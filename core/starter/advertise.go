package starter

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/psc"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Advertised is what one server was seen advertising while the application
// ran: from a tmadmin printservice listing (Files.PSC), or from which
// server process ran which service in a ULOG. It is how a server that
// advertises at run time (CLOPT -A or no -s, and no *SERVICES to fall back
// on) gets its services (Advertise).
type Advertised struct {
	// Server is the program as the source names it: a path matches by its
	// base name, and a name tmadmin cut with '+' ("simpserv.+") by what it
	// kept.
	Server string
	// Group and SrvID name the instance when the source gives them (psc
	// does, a ULOG line does not: "" and 0); they match before Server does.
	// A group cut with '+' matches by what it kept.
	Group    string
	SrvID    int
	Services []string
	From     string // where it was read, for messages: "psc:12", "listing.txt:12"
}

// Advertise adds what servers were seen advertising to into, the
// scenario's advertise map (server name as *SERVERS writes it → services),
// and returns what it had to leave out, worded for the user. m is the
// configuration read without those entries. Each seen server is matched to
// the *SERVERS entries of m by group and SRVID when given, else by program
// name; its services are added to the entry's list (a union, in the order
// first seen, over every instance of that name). Tuxedo's system servers
// and gateways are skipped (they advertise what their -s options or the
// DMCONFIG say); a server with -s keeps its -s services, and services seen
// besides them are warned about; a service name tmadmin cut with '+' is
// resolved to the one known service it begins, else left out.
func Advertise(m *core.Model, into map[string][]string, seen []Advertised) []string {
	var warns []string
	for _, a := range seen {
		where := cmp.Or(a.From, "advertised")
		idx := matchServers(m, a)
		if len(idx) == 0 {
			warns = append(warns, fmt.Sprintf("%s: no server %s of the UBBCONFIG: its services (%s) are left out",
				where, describe(a), strings.Join(a.Services, " ")))
			continue
		}
		services, w := wholeNames(m, a.Services, where)
		warns = append(warns, w...)
		done := map[string]bool{}
		for _, i := range idx {
			srv := &m.Servers[i]
			if done[srv.Name] || srv.System || srv.Gateway {
				continue
			}
			done[srv.Name] = true
			if srv.AdvertiseSource == "clopt" {
				var extra []string
				for _, s := range services {
					if !slices.Contains(srv.Services, s) {
						extra = append(extra, s)
					}
				}
				if len(extra) > 0 {
					warns = append(warns, fmt.Sprintf("%s: server %s (group %s) advertises %s at run time besides its -s services: "+
						"not simulated (name them in its CLOPT -s)", where, srv.Name, srv.Group, strings.Join(extra, " ")))
				}
				continue
			}
			for _, s := range services {
				if !slices.Contains(into[srv.Name], s) {
					into[srv.Name] = append(into[srv.Name], s)
				}
			}
		}
	}
	return warns
}

// describe names a seen server as its source did.
func describe(a Advertised) string {
	if a.Group != "" {
		return fmt.Sprintf("%s (group %s, SRVID %d)", a.Server, a.Group, a.SrvID)
	}
	return a.Server
}

// matchServers are the indexes of m's instances that a names: by group and
// SRVID when given (the program then only tells apart the instances that a
// group cut with '+' leaves), else by program.
func matchServers(m *core.Model, a Advertised) []int {
	var out []int
	if a.Group != "" {
		for i, srv := range m.Servers {
			if srv.SrvID == a.SrvID && cutMatch(srv.Group, a.Group) {
				out = append(out, i)
			}
		}
		if len(out) > 1 && a.Server != "" {
			out = slices.DeleteFunc(out, func(i int) bool { return !progMatch(m.Servers[i].Name, a.Server) })
		}
		return out
	}
	for i, srv := range m.Servers {
		if a.Server != "" && progMatch(srv.Name, a.Server) {
			out = append(out, i)
		}
	}
	return out
}

// cutMatch says whether shown (as tmadmin shows it, perhaps cut with '+')
// is name.
func cutMatch(name, shown string) bool {
	if prefix, cut := psc.Truncated(shown); cut {
		return strings.HasPrefix(name, prefix)
	}
	return name == shown
}

// progMatch says whether shown names the program name, comparing base
// names (a *SERVERS entry and tmadmin may each give a path or not).
func progMatch(name, shown string) bool {
	return cutMatch(base(name), base(shown))
}

func base(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// wholeNames resolves service names cut with '+' to the one known service
// each begins; those it cannot are left out with a warning.
func wholeNames(m *core.Model, names []string, where string) ([]string, []string) {
	var out, warns []string
	for _, n := range names {
		prefix, cut := psc.Truncated(n)
		if !cut {
			out = append(out, n)
			continue
		}
		var match []string
		for _, s := range m.Services {
			if strings.HasPrefix(s.Name, prefix) {
				match = append(match, s.Name)
			}
		}
		if len(match) != 1 {
			warns = append(warns, fmt.Sprintf("%s: service %s was cut by tmadmin and %d known services begin %s: "+
				"left out (psc -v gives whole names)", where, n, len(match), prefix))
			continue
		}
		out = append(out, match[0])
	}
	return out, warns
}

// fromPSC gathers a printservice listing's rows per server instance
// (program, group, SRVID), in the order first listed; each says where it
// was read as name:LINE (name "" is "psc").
func fromPSC(rows []psc.Row, name string) []Advertised {
	name = cmp.Or(name, SourcePSC)
	var out []Advertised
	at := map[[3]string]int{}
	for _, r := range rows {
		k := [3]string{r.Prog, r.Group, fmt.Sprint(r.SrvID)}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Advertised{Server: r.Prog, Group: r.Group, SrvID: r.SrvID, From: fmt.Sprintf("%s:%d", name, r.Line)})
		}
		if !slices.Contains(out[i].Services, r.Service) {
			out[i].Services = append(out[i].Services, r.Service)
		}
	}
	return out
}

// SourcePSC is the source of the diagnostics about a psc listing
// (Files.PSC): their messages start "psc:LINE: ".
const SourcePSC = "psc"

// pscProblem is the error of a psc listing: "psc:LINE: WHY".
func pscProblem(err error) *diag.Error {
	e := diag.Invalid(err)
	for i := range e.Diagnostics {
		e.Diagnostics[i].Source = SourcePSC
	}
	if len(e.Diagnostics) == 0 {
		e.Diagnostics = []ubb.Diagnostic{{Source: SourcePSC, Severity: ubb.SeverityError, Message: e.Message}}
	}
	return e
}

// loadFiles reads f's configuration, and with a psc listing (f.PSC) reads
// it again with the advertise entries the listing gives (Advertise): the
// Model, those entries (nil without any) and what the listing left out.
func loadFiles(f Files) (*core.Model, map[string][]string, []string, error) {
	in := ubb.Input{UBBName: cmp.Or(f.UBBPath, "ubbconfig"), UBBConfig: *f.UBBConfig, DMName: cmp.Or(f.DMPath, "dmconfig")}
	if f.DMConfig != nil {
		in.DMConfig = *f.DMConfig
	}
	m, err := core.LoadModel(in)
	if err != nil || (f.PSC == nil && len(f.Advertised) == 0) {
		return m, nil, nil, err
	}
	seen := f.Advertised
	if f.PSC != nil {
		rows, err := psc.Read(*f.PSC)
		if err != nil {
			return nil, nil, nil, pscProblem(err)
		}
		seen = append(fromPSC(rows, f.PSCPath), seen...)
	}
	adv := map[string][]string{}
	warns := Advertise(m, adv, seen)
	if len(adv) == 0 {
		return m, nil, warns, nil
	}
	in.Advertise = adv
	m, err = core.LoadModel(in)
	return m, adv, warns, err
}

// nothingToRun is the error of a configuration in which no server offers a
// service: it names each application server that advertises at run time
// (no -s, nothing in *SERVICES) and what would tell the starter its
// services.
func nothingToRun(m *core.Model) error {
	var args []any
	for _, k := range runtimeServers(m) {
		args = append(args, k[0], k[1])
	}
	const none = "no server offers a service, so there is nothing to run"
	if len(args) == 0 {
		return diag.FieldErrorf("ubbconfig", none+": %s", whyNone(m))
	}
	const most = 10
	n := len(args) / 2
	list := strings.Repeat("server %s (group %s), ", min(n, most))
	list = strings.TrimSuffix(list, ", ")
	if n > most {
		args = args[:2*most]
		list += fmt.Sprintf(" and %d more", n-most)
	}
	verb, each := "advertises", ""
	if n > 1 {
		verb, each = "advertise", " for each"
	}
	return diag.FieldErrorf("ubbconfig", none+": "+list+" "+verb+" at run time: "+
		"give a ULOG (--ulog) or a psc listing (--psc), or an `advertise` entry"+each, args...)
}

// whyNone says why a configuration without a server that advertises at
// run time offers nothing: it has no server, or only Tuxedo's own (JSL,
// JREPSVR: a Jolt listener and its repository), which serve no
// application service.
func whyNone(m *core.Model) string {
	if len(m.Servers) == 0 {
		return "the configuration has no server (no *SERVERS entry)"
	}
	var names []string
	for _, srv := range m.Servers {
		if !srv.System && !srv.Gateway {
			return "its application servers offer no service"
		}
		if !slices.Contains(names, srv.Name) {
			names = append(names, srv.Name)
		}
	}
	return "its servers (" + strings.Join(names, ", ") + ") are all Tuxedo system servers, which offer no application service"
}

// advertiseOf is the advertise map a scenario starts with: the entries a
// listing gave, copied.
func advertiseOf(adv map[string][]string) map[string][]string {
	if len(adv) == 0 {
		return nil
	}
	out := make(map[string][]string, len(adv))
	for k, v := range adv {
		out[k] = slices.Clone(v)
	}
	return out
}

// checkOffered is nothingToRun's error when no application server of m
// offers a service and nothing is imported, else nil: a request log's
// services could then resolve against nothing.
func checkOffered(m *core.Model) error {
	for _, srv := range m.Servers {
		if !srv.System && !srv.Gateway && len(srv.Services) > 0 {
			return nil
		}
	}
	for _, s := range m.Services {
		if s.Remote != nil {
			return nil
		}
	}
	return nothingToRun(m)
}

// runtimeServers are the application servers of m that advertise nothing
// the configuration says (no -s, nothing in *SERVICES, no advertise entry):
// name and group, once per entry name and group, in scan order.
func runtimeServers(m *core.Model) [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	for _, srv := range m.Servers {
		k := [2]string{srv.Name, srv.Group}
		if srv.System || srv.Gateway || len(srv.Services) > 0 || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	return out
}

// runtimeWarnings are the warnings of a scenario that runs though some of
// its servers advertise at run time: they offer nothing in it.
func runtimeWarnings(m *core.Model) []string {
	var out []string
	for _, k := range runtimeServers(m) {
		out = append(out, fmt.Sprintf("server %s (group %s) advertises at run time and offers nothing in this scenario: "+
			"give a ULOG (--ulog) or a psc listing (--psc), or an `advertise` entry", k[0], k[1]))
	}
	return out
}

// standIns are the advertise entries of a configuration whose every server
// advertises at run time (no -s, nothing in *SERVICES): one service each,
// named like the server in capitals (at most 15 characters, Tuxedo's
// longest service name), so that the configuration runs as it is until a
// ULOG, a psc listing or an advertise entry says what it really offers.
func standIns(m *core.Model) []Advertised {
	var out []Advertised
	for _, k := range runtimeServers(m) {
		base := k[0][strings.LastIndexByte(k[0], '/')+1:]
		svc := strings.ToUpper(base)
		if len(svc) > 15 {
			svc = svc[:15]
		}
		out = append(out, Advertised{Server: k[0], Services: []string{svc}, From: "stand-in for " + k[0] + " (group " + k[1] + ")"})
	}
	return out
}

// standInWarning says which servers run a stand-in service, and how to
// give their real ones.
func standInWarning(stand []Advertised) string {
	parts := make([]string, len(stand))
	for i, a := range stand {
		parts[i] = fmt.Sprintf("server %s runs %s", strings.TrimPrefix(a.From, "stand-in for "), a.Services[0])
	}
	return "no server's services are in the UBBCONFIG (every one advertises at run time): each runs one stand-in service named like it, " +
		"so that the configuration runs as it is: " + strings.Join(parts, ", ") +
		"; give a ULOG (--ulog) or a psc listing (--psc), or `advertise` entries, for their real services"
}
