package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": [3, 2, {"d": null, "c": true}]}`, `{"a":[3,2,{"c":true,"d":null}],"b":1}`},
		{"  {\n\t\"x\" : \"<&>\" }\n", `{"x":"<&>"}`},
		{`{"n": 1.50, "m": 1e3, "u": "\u00e9"}`, `{"m":1e3,"n":1.50,"u":"é"}`},
		{`[]`, `[]`},
	}
	for _, tt := range tests {
		got, err := Canonical([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Canonical(%q) got %q (%v), want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestScenarioID(t *testing.T) {
	canonical := `{"a":1}`
	sum := sha256.Sum256([]byte(canonical))
	// base64url of the digest, computed independently from its hex form.
	if got := ScenarioID([]byte(canonical)); len(got) != 22 || !validID().MatchString(got) {
		t.Fatalf("ScenarioID got %q, want 22 base64url characters", got)
	}
	if hex.EncodeToString(sum[:3]) != "015abd" {
		t.Fatalf("sha256 prefix changed: %x", sum[:3])
	}
	// 0x01 0x5a 0xbd = 000000 010101 101010 111101 -> "AVq9".
	if got := ScenarioID([]byte(canonical))[:4]; got != "AVq9" {
		t.Errorf("ScenarioID prefix got %q, want AVq9", got)
	}
}

func TestCreateScenario(t *testing.T) {
	h := newHarness(t, nil)
	body := scenarioJSON(t)
	reordered := "\n" + strings.Replace(body, "{\n  \"name\"", "{ \"seed\": 1, \"name\"", 1)
	reordered = strings.Replace(reordered, "\"seed\": 1,\n  \"workload\"", "\"workload\"", 1)
	if reordered == body {
		t.Fatal("the test did not reorder the scenario")
	}
	tests := []struct {
		name   string
		body   string
		status int
	}{
		{"first time", body, http.StatusCreated},
		{"again", body, http.StatusOK},
		{"same scenario, other key order and spacing", reordered, http.StatusOK},
	}
	var id string
	for _, tt := range tests {
		rec := h.do("POST", "/api/v1/scenarios", "application/json", tt.body)
		if rec.Code != tt.status {
			t.Fatalf("%s: status got %d, want %d: %s", tt.name, rec.Code, tt.status, rec.Body.String())
		}
		var got struct{ ID, URL string }
		decode(t, rec, &got)
		if id == "" {
			id = got.ID
		}
		if got.ID != id || got.URL != "/s/"+id || !validID().MatchString(id) {
			t.Errorf("%s: got id %q url %q, want %q and /s/%s", tt.name, got.ID, got.URL, id, id)
		}
	}
	rec := h.do("GET", "/api/v1/scenarios/"+id, "", "")
	want, _ := Canonical([]byte(body))
	if rec.Code != 200 || rec.Body.String() != string(want) || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("GET scenario: %d %q %.80s, want 200 application/json and the canonical JSON", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	page := h.do("GET", "/s/"+id, "", "")
	if page.Code != 200 || !strings.Contains(page.Body.String(), "tuxlb playground") {
		t.Errorf("GET /s/%s: %d %.80s, want 200 and the playground's index.html", id, page.Code, page.Body.String())
	}
}

func TestSharedScenarioPages(t *testing.T) {
	tests := []struct {
		name   string
		assets bool
		path   string
		status int
		want   string
	}{
		{"unknown id", true, "/s/" + unknownID, 404, "Not found"},
		{"malformed id", true, "/s/<script>", 404, "Not found"},
		{"index, playground built", true, "/", 200, "tuxlb playground"},
		{"index, not built", false, "/", 200, "go tool task build"},
		{"unknown file", true, "/nothing.js", 404, "Not found"},
	}
	for _, tt := range tests {
		h := newHarness(t, func(c *Config) {
			if !tt.assets {
				c.Assets = nil
			}
		})
		rec := h.do("GET", tt.path, "", "")
		if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("%s: GET %s got %d %.100q, want %d containing %q", tt.name, tt.path, rec.Code, rec.Body.String(), tt.status, tt.want)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: Content-Type got %q, want text/html", tt.name, ct)
		}
		// a dead share link is opened on phones too, and in the dark: the
		// server's own pages say so as the playground's index.html does
		if tt.status == 404 || !tt.assets {
			for _, want := range []string{`<meta name="viewport" content="width=device-width, initial-scale=1">`, `<meta name="color-scheme" content="light dark">`, `<link rel="icon" href="data:`} {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("%s: GET %s: the page has no %s", tt.name, tt.path, want)
				}
			}
		}
	}
}
