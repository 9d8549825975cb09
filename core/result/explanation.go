package result

// Explanation tells why request Seq went where it went: every candidate the
// rule looked at, what it saw, and which rule picked the winner.
type Explanation struct {
	Seq       int64  `json:"seq"` // 1-based issue order
	ID        string `json:"id"`  // the dispatch log's id
	Service   string `json:"service"`
	Origin    string `json:"origin"`
	IssueUS   int64  `json:"issue_us"`
	Policy    string `json:"policy"`    // tuxedo, round_robin, ...
	Algorithm string `json:"algorithm"` // "LDBAL=N", "SHM real-time", "MP round-robin", or the policy
	Rule      string `json:"rule"`      // the dispatch log's reason: first, idle, least-load, TPENOENT, ...
	Winner    string `json:"winner"`    // queue name, "" on failure
	Server    string `json:"server"`    // instance that will process it
	// Routing is the data-dependent routing step, for a service with a
	// routing criterion: it runs before the rule and leaves Candidates.
	Routing    *RoutingStep `json:"routing,omitempty"`
	Candidates []Candidate  `json:"candidates"`
	Text       string       `json:"text"` // the decision in a few sentences, for people
	// Failure says why the request failed after it reached a queue
	// (TPESVCERR): which instance crashed or timed out, or that its queue
	// lost its last instance; for TPESVCFAIL, which of its nested requests
	// failed, with which code, or timed out. Empty when it completed.
	Failure string `json:"failure,omitempty"`
	// Parent is, for a nested request, the id of the calling request, and
	// IssuedBy the instance that issued it (its machine is Origin).
	Parent   string `json:"parent,omitempty"`
	IssuedBy string `json:"issued_by,omitempty"`
	// Mode is how the nested request was issued: tpcall, tpacall, tpforward;
	// "forward" for a /Q forward, whose IssuedBy is its TMQFORWARD instance.
	Mode string `json:"mode,omitempty"`
}

// RoutingStep is how data-dependent routing restricted a request's
// candidates: its value, the range that held it, the group it names.
type RoutingStep struct {
	Criterion string `json:"criterion"`
	Field     string `json:"field"`
	Value     string `json:"value"`           // "" when the request carries none
	Range     string `json:"range,omitempty"` // the range that held the value, as written with its group: "10000-49999:BANKB1"
	Group     string `json:"group,omitempty"` // the group whose servers remain ("*": any group)
	// Fallback says the range's group had no candidate, so the catch-all's
	// group was used.
	Fallback   bool `json:"fallback,omitempty"`
	Candidates int  `json:"candidates"` // instances left
	// BufType is the request's buffer type ("" when it gives none); when
	// the criterion has several entries that differ by BUFTYPE, EntryLine
	// is the line of the one it picked, and NoEntry says none holds it.
	BufType   string `json:"buftype,omitempty"`
	EntryLine int    `json:"entry_line,omitempty"`
	NoEntry   bool   `json:"no_entry,omitempty"`
}

// Candidate is one instance that advertises the requested service, as the
// dispatch rule saw it at the moment of the choice.
type Candidate struct {
	Server  string `json:"server"`
	Queue   string `json:"queue"`
	LMID    string `json:"lmid"`
	Local   bool   `json:"local"` // on the origin machine
	Idle    bool   `json:"idle"`
	Servers int    `json:"n"`                 // n(q)
	Waiting int    `json:"waiting"`           // requests waiting in its queue
	Work    int64  `json:"work,omitempty"`    // SHM: W(q)
	Counter int64  `json:"counter,omitempty"` // MP: C_m(q)
	Load    int    `json:"load"`              // L(s,q)
	NetLoad int    `json:"netload"`           // N(q) as applied
	Cost    string `json:"cost,omitempty"`    // exact cost, e.g. "150/2+50 = 125"
	Chosen  bool   `json:"chosen"`
	Note    string `json:"note,omitempty"` // why it lost or won, in words
	// State is the instance's life-cycle state when the choice was made (up,
	// down, restarting), in runs where instances change state.
	State string `json:"state,omitempty"`
}
