package scenario

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// This file is the scenario's side of applications: nested calls
// (services.S.calls) and client populations (workload.generate.clients),
// as docs/scenario.md describes them.

// CallStep is one step a server runs after its own work for a service: a
// nested request of Service, issued as Mode says, with probability P, and
// the routing value Route.
type CallStep struct {
	Service string     `json:"service"`
	Mode    string     `json:"mode,omitempty"` // tpcall (default), tpacall, tpforward
	P       *float64   `json:"p,omitempty"`    // 0 < p <= 1, default 1
	Route   *CallRoute `json:"route,omitempty"`
	// NoReply (tpacall steps only) issues the child with TPNOREPLY: nobody
	// waits for it, and its reply is never sent.
	NoReply bool `json:"noreply,omitempty"`
	// Enqueue ("QSPACE:Q"), instead of Service, is a tpenqueue: a request
	// of the queue space, waited for like a tpcall, that stores a /Q
	// message in queue Q.
	Enqueue string `json:"enqueue,omitempty"`
}

// CallRoute is a nested request's routing value: the calling request's
// ("inherit", the default), a constant (a JSON number or string), or drawn
// as a stream's route field draws it.
type CallRoute struct {
	Inherit bool
	Const   RouteValue
	Spec    *RouteSpec
}

// UnmarshalJSON reads "inherit", a constant, or a route object.
func (r *CallRoute) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var spec RouteSpec
		if err := jsonx.DecodeInto(data, &spec); err != nil {
			return err
		}
		*r = CallRoute{Spec: &spec}
		return nil
	}
	var v RouteValue
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	if v == "inherit" {
		*r = CallRoute{Inherit: true}
		return nil
	}
	*r = CallRoute{Const: v}
	return nil
}

// MarshalJSON writes the route back as it was read.
func (r CallRoute) MarshalJSON() ([]byte, error) {
	switch {
	case r.Spec != nil:
		return json.Marshal(r.Spec)
	case r.Inherit:
		return []byte(`"inherit"`), nil
	}
	return r.Const.MarshalJSON()
}

// JSONProblem describes what is wrong with a route that did not decode
// (jsonx.Shaped: the strict reader's message names it).
func (*CallRoute) JSONProblem(v any, path string) jsonx.Problem {
	switch v.(type) {
	case map[string]any:
		return jsonx.FindProblem(v, reflect.TypeOf(RouteSpec{}), path)
	case string, json.Number:
		return jsonx.Problem{}
	}
	return jsonx.Mismatch(path, `"inherit", a constant value or a route object`, v)
}

// ClientSet is a closed-loop population of Count clients on machine Origin:
// each thinks (Think), issues a request (drawn from Services by weight, or
// the next of Script), waits for its outcome, and so on; Retry says which
// failures it tries again.
type ClientSet struct {
	Name   string `json:"name"`
	Count  int    `json:"count"`
	Origin string `json:"origin,omitempty"`
	// Via names the WSL instance (GROUP/SRVID) the clients connect
	// through: they are workstation clients, and their requests enter on
	// the WSL's machine (not with Origin).
	Via      string          `json:"via,omitempty"`
	Think    *Dist           `json:"think,omitempty"`
	Services []ClientService `json:"services,omitempty"`
	Script   []ScriptEntry   `json:"script,omitempty"`
	Retry    *RetrySpec      `json:"retry,omitempty"`
}

// WorkstationSpec is the workstation front end's timing: how long a
// handler (WSH) takes with each message it passes, a request on its way in
// and a reply or failure on its way out.
type WorkstationSpec struct {
	HandlingTime *Dist `json:"handling_time,omitempty"` // default const 0
}

// ClientService is one service a client set draws its requests from.
type ClientService struct {
	Service string     `json:"service"`
	Weight  *float64   `json:"weight,omitempty"` // default 1
	Route   *RouteSpec `json:"route,omitempty"`
	// BufType is the requests' buffer type, as a stream's buftype.
	BufType string `json:"buftype,omitempty"`
}

// ScriptEntry is one request of a client script: a service name, or
// {"service", "route", "buftype"} with a constant routing value, or
// {"enqueue": "QSPACE:Q"}.
type ScriptEntry struct {
	Service string      `json:"service"`
	Route   *RouteValue `json:"route,omitempty"`
	BufType string      `json:"buftype,omitempty"` // the request's buffer type, as a stream's buftype
	// Enqueue ("QSPACE:Q"), instead of Service, is a tpenqueue of a /Q
	// message in queue Q of queue space QSPACE.
	Enqueue string `json:"enqueue,omitempty"`
}

// UnmarshalJSON reads a service name or an object.
func (s *ScriptEntry) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var name string
		if err := json.Unmarshal(data, &name); err != nil {
			return err
		}
		*s = ScriptEntry{Service: name}
		return nil
	}
	type plain ScriptEntry
	var p plain
	if err := jsonx.DecodeInto(data, &p); err != nil {
		return err
	}
	*s = ScriptEntry(p)
	return nil
}

// JSONProblem describes what is wrong with a script entry that did not
// decode (jsonx.Shaped: the strict reader's message names it).
func (*ScriptEntry) JSONProblem(v any, path string) jsonx.Problem {
	switch v.(type) {
	case map[string]any:
		type plain ScriptEntry
		return jsonx.StructProblem(v, reflect.TypeOf(plain{}), path)
	case string:
		return jsonx.Problem{}
	}
	return jsonx.Mismatch(path, "a service name, {\"service\", \"route\"} or {\"enqueue\": \"QSPACE:Q\"}", v)
}

// MarshalJSON writes a bare name when there is no route nor buffer type.
func (s ScriptEntry) MarshalJSON() ([]byte, error) {
	if s.Route == nil && s.BufType == "" && s.Enqueue == "" {
		return json.Marshal(s.Service)
	}
	if s.Service == "" && s.Route == nil && s.BufType == "" {
		return json.Marshal(struct {
			Enqueue string `json:"enqueue"`
		}{s.Enqueue})
	}
	type plain ScriptEntry
	return json.Marshal(plain(s))
}

// RetrySpec is what a client does after a failed request: while fewer than
// Max retries of it were made and its code is in On, it waits one Backoff
// draw and issues the same service with the same routing value again.
type RetrySpec struct {
	Max     int      `json:"max"`
	On      []string `json:"on,omitempty"` // default ["TPETIME"]
	Backoff *Dist    `json:"backoff,omitempty"`
}
