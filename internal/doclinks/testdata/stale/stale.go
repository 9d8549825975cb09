// Package stale has one comment of each kind of doc link: [Kept],
// [Kept.Run], [Kept.N], [strings.Cut], [MAXGEN] and [i] resolve or are not
// checked; [Renamed], [Kept.Gone], [Kept.Run.Deeper] and [stale.Kept] (a
// package that the file does not import is looked up in the standard
// library) name nothing.
package stale

// Kept is declared.
type Kept struct{ N int }

// Run is Kept's method.
func (k *Kept) Run() {}
