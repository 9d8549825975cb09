package admission

// Decision is the verdict on a request's estimate against the memory it
// may hold: the one rule the CLI (its --memory-budget) and the server (a
// share of its budget) apply. Each caller presents a refusal its own way,
// an error naming the flag or a 413 problem, from Refusal's words.
type Decision struct {
	Cost   Cost
	Budget int64 // the bytes the request may hold
	Fits   bool  // Cost.Bytes() <= Budget: the request is admitted
}

// Decide checks cost against budget: a request fits when its estimated
// peak is at most budget.
func Decide(cost Cost, budget int64) Decision {
	return Decision{Cost: cost, Budget: budget, Fits: cost.Bytes() <= budget}
}

// InFlight is how many requests each of parallel runs (at least one) of an
// admitted estimate may hold at once in what the budget leaves, at
// perRequest bytes a request (InFlightBytes): at least one.
func (d Decision) InFlight(perRequest int64, parallel int) int64 {
	return max((d.Budget-d.Cost.Bytes())/int64(max(parallel, 1))/perRequest, 1)
}

// Refusal words a decision that does not fit, for a request of the kind
// what ("run", "sweep", "log", "model as JSON") over limit, the budget as
// the caller names it: "this run would hold about 5.0 GiB at its peak,
// more than --memory-budget 4.0 GiB; the largest part (replications): 8
// replications at once × ..., about 3.1 GiB". withField puts the input
// behind the largest part in parentheses (when it has one); a caller that
// names it elsewhere (the problem's errors) leaves it out.
func (d Decision) Refusal(what, limit string, withField bool) string {
	l := d.Cost.Largest()
	field := ""
	if withField && l.Field != "" {
		field = " (" + l.Field + ")"
	}
	return "this " + what + " would hold about " + SizeText(d.Cost.Bytes()) + " at its peak, more than " + limit +
		"; the largest part" + field + ": " + l.What + ", about " + SizeText(l.Bytes)
}
