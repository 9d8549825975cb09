package ubb

import (
	"fmt"
	"strings"
	"testing"
)

// unknownResources is a UBBCONFIG whose *RESOURCES has n unknown keywords.
func unknownResources(n int) string {
	var b strings.Builder
	b.WriteString("*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "UNKNOWN%d 1\n", i)
	}
	b.WriteString("*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1\n")
	return b.String()
}

// resourceSteps reads the *RESOURCES of text and returns the parameters
// the reader looked at.
func resourceSteps(t testing.TB, text string) int {
	secs, diags := parseSyntax("UBBCONFIG", text, "RESOURCES", isResourcesSection, noLooseKV)
	if len(diags) > 0 {
		t.Fatalf("parse: %v", ErrorList(diags))
	}
	b := &builder{file: "UBBCONFIG", cur: "UBBCONFIG", m: &Model{}}
	var res []*section
	for _, s := range secs {
		if s.name == "RESOURCES" {
			res = append(res, s)
		}
	}
	b.buildResources(res)
	return b.resourceSteps
}

// Unknown keywords in *RESOURCES cost the reader a constant amount each:
// eight times the keywords, at most about eight times the work (it once
// compared each keyword with every one before it).
func TestResourcesLinear(t *testing.T) {
	small, large := resourceSteps(t, unknownResources(1000)), resourceSteps(t, unknownResources(8000))
	if large > 10*small+100 {
		t.Errorf("1000 keywords: %d steps; 8000: %d steps; want about 8 times as many, not %.0f", small, large, float64(large)/float64(small))
	}
}

// A large *RESOURCES loads in time linear in its size: compare ns/keyword
// across the sizes.
func BenchmarkResourcesUnknownKeywords(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		text := unknownResources(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Load(Input{UBBConfig: text}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/keyword")
		})
	}
}
