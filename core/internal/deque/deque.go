// Package deque is a double-ended queue in one slice ([Deque]): pushed at
// its head or its tail, read and taken at any position from the head. It
// holds the messages of a /Q queue, where a message is stored at the tail,
// a failed one put back at the head, and a forwarder takes the first
// available one wherever it is; and the dispatch log's requests in flight,
// in issue order, each row written once it and those before it are
// complete.
package deque

// Deque holds its items in items[head:], head first. A push at the tail
// first moves the items to the slice's start once the free room before
// them is half of it or more; a push at the head with no room before the
// items moves them up by one.
type Deque[T any] struct {
	items []T
	head  int
}

// Len is how many items d holds.
func (d *Deque[T]) Len() int { return len(d.items) - d.head }

// At returns the item at position i (0 is the head; i < Len).
func (d *Deque[T]) At(i int) *T { return &d.items[d.head+i] }

// PushTail adds v after every item.
func (d *Deque[T]) PushTail(v T) {
	if d.head > 0 && d.head >= len(d.items)/2 {
		n := copy(d.items, d.items[d.head:])
		clear(d.items[n:])
		d.items, d.head = d.items[:n], 0
	}
	d.items = append(d.items, v)
}

// PushHead adds v before every item.
func (d *Deque[T]) PushHead(v T) {
	if d.head == 0 {
		var zero T
		d.items = append(d.items, zero)
		copy(d.items[1:], d.items)
	} else {
		d.head--
	}
	d.items[d.head] = v
}

// TakeAt removes the item at position i (i < Len) and returns it: the items
// before it move up by one.
func (d *Deque[T]) TakeAt(i int) T {
	var zero T
	at := d.head + i
	v := d.items[at]
	copy(d.items[d.head+1:at+1], d.items[d.head:at])
	d.items[d.head] = zero
	d.head++
	if d.head == len(d.items) {
		d.items, d.head = d.items[:0], 0
	}
	return v
}
